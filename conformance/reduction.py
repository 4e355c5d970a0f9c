"""Reducing a JSON value while a property holds: hierarchical deletion.

Hypothesis shrinks a drawn scenario within what its strategy can draw; a
strategy that always declares five tools keeps five tools. :func:`reduce`
goes on from there on the JSON itself: it tries to delete each member of an
object and each element of an array, outermost first, keeps a deletion when
the property still holds, and descends only into what it could not delete.
It repeats until a whole pass deletes nothing, so the result is 1-minimal
for deletions: deleting any one more member or element loses the property.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

Path = tuple[str | int, ...]


def reduce(value: Any, holds: Callable[[Any], bool], *, max_checks: int = 2000) -> Any:
    """A value obtained from ``value`` by deletions, for which ``holds`` is still true
    (``holds(value)`` is assumed). At most ``max_checks`` calls of ``holds``."""
    checks = 0
    current = copy.deepcopy(value)
    changed = True
    while changed and checks < max_checks:
        changed = False
        for path in _paths(current):
            if checks >= max_checks:
                break
            candidate = _without(current, path)
            if candidate is None:
                continue
            checks += 1
            if holds(candidate):
                current, changed = candidate, True
                break  # the paths of the new value differ: start the pass again
    return current


def _paths(value: Any, prefix: Path = ()) -> Iterator[Path]:
    """Every member and element path, parents before children, in document order."""
    if isinstance(value, dict):
        children: list[tuple[str | int, Any]] = list(value.items())
    elif isinstance(value, list):
        children = list(enumerate(value))
    else:
        return
    for key, _ in children:
        yield (*prefix, key)
    for key, child in children:
        yield from _paths(child, (*prefix, key))


def _without(value: Any, path: Path) -> Any:
    """A copy of ``value`` without the member or element at ``path`` (None: no path)."""
    if not path:
        return None
    copied = copy.deepcopy(value)
    parent = copied
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    return copied
