"""Replaying recorded lines through a harness: :func:`replay` (the command: :mod:`.command`)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from doomloop_kit.conformance.protocol import Connection
from doomloop_kit.conformance.protocol.messages import takes_session
from doomloop_kit.jsvalue.values import is_number

from .answers import created_session, differences, runs_compared
from .recordings import Line, tag_non_finite
from .rules import Rule, needs

ANSWER_TIMEOUT: Final = 30.0
"""The longest wait for one answer: a harness that takes longer fails the replay."""


@dataclass
class Report:
    """What a replay found."""

    reproduced: int = 0
    in_part: int = 0
    """Lines reproduced over their runs before one that leaves the domain (ENG-151)."""
    excluded: Counter[str] = field(default_factory=Counter)
    differences: list[str] = field(default_factory=list)

    def summary(self) -> str:
        rules = ", ".join(f"{name}: {count}" for name, count in sorted(self.excluded.items()))
        part = f" ({self.in_part} up to a run outside the domain)" if self.in_part else ""
        return (
            f"{self.reproduced} reproduced{part}, {sum(self.excluded.values())} excluded"
            f" ({rules or 'none'}), {len(self.differences)} different"
        )


def _with_session(line: Line, sessions: Mapping[str, str]) -> str:
    request = line.request
    if not isinstance(request, Mapping) or not takes_session(request.get("op")):
        return line.raw
    named = request.get("session")
    if not isinstance(named, str) or named not in sessions:
        return line.raw
    return json.dumps(tag_non_finite({**request, "session": sessions[named]}), allow_nan=False)


def _ids(lines: Iterable[Line]) -> Iterator[tuple[Line, bool]]:
    """Each line with whether it starts a fresh harness (its id did not increase)."""
    previous: float | None = None
    for line in lines:
        ident = line.request.get("id") if isinstance(line.request, Mapping) else None
        number = float(ident) if isinstance(ident, int | float) and is_number(ident) else None
        yield line, previous is None or (number is not None and number <= previous)
        previous = number if number is not None else previous


def replay(
    command: str,
    lines: Sequence[Line],
    rules: Sequence[Rule],
    done: Callable[[], None] = lambda: None,
) -> Report:
    """Send every line to ``command`` (a protocol-v1 harness) and compare (module doc);
    ``done`` is called after each line (the command's progress bar)."""
    report = Report()
    harness: Connection | None = None
    sessions: dict[str, str] = {}
    session_needs: dict[str, frozenset[str]] = {}  # a session's lines need what its create needed
    declared: frozenset[str] = frozenset()  # the features the harness declares
    try:
        for line, fresh in _ids(lines):
            if fresh:
                if harness is not None:
                    harness.close()
                harness, sessions = Connection(command, timeout=ANSWER_TIMEOUT), {}
                declared = frozenset(harness.start()["features"])
            assert harness is not None
            answer = harness.receive(harness.send_raw(_with_session(line, sessions)))
            request = line.request if isinstance(line.request, Mapping) else {}
            needed = needs(line) | session_needs.get(str(request.get("session")), frozenset())
            if request.get("op") == "create":
                # the session is named "@<id>" or by the recording's own id; a
                # create that failed here (or answered no session, a difference
                # of its own) maps them to a name no harness opened
                ours = created_session(answer) or "@none"
                recorded = line.sdk.get("result")
                names = [f"@{request.get('id')}"]
                if isinstance(recorded, Mapping):
                    names.append(str(recorded.get("session")))
                for name in names:
                    sessions[name], session_needs[name] = ours, needed
            done()
            rule = next((r for r in rules if r.matches(line, needed, declared)), None)
            if rule is not None:
                report.excluded[f"{rule.name} ({rule.statement})"] += 1
                continue
            found = differences(line, answer)
            if found:
                report.differences.append(f"line {line.number} [{line.klass}]: {'; '.join(found)}")
            else:
                report.reproduced += 1
                report.in_part += runs_compared(line) is not None
    finally:
        if harness is not None:
            harness.close()
    return report
