"""Draws that depend on the seed alone, not on which source files are loaded.

Hypothesis (6.13x and later) sometimes draws a literal found in the source of
the *local* modules already imported -- any module outside ``site-packages``
and the standard library, other than test files. For the kit that made the
generated vectors depend on the curated modules' literals (adding a vector to
``generators/curated/edges.py`` redrew five generated families), on what the
process had imported before drawing, and on where the kit is installed: from
a wheel in ``site-packages`` nothing is local, so ``vectors regenerate
--check`` would disagree with a checkout. :func:`seed_only` switches that
source off while the kit draws, so the same seed gives the same bytes
everywhere (vectors.md, "Determinism").

It replaces a private function of Hypothesis; ``regenerate`` pins the exact
Hypothesis version (``HYPOTHESIS_VERSION``) and this module fails loudly if
the private names are gone.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from hypothesis.internal.conjecture import providers
from hypothesis.internal.constants_ast import Constants


@contextlib.contextmanager
def seed_only() -> Iterator[None]:
    """Within the block Hypothesis draws no literal from local source files."""
    original = providers._get_local_constants
    cache = providers.CONSTANTS_CACHE.cache
    cache.clear()  # per-type pools computed with local constants
    providers._get_local_constants = Constants
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.clear()
