"""Result awareness: was a repeated call answered with the same result, or a new one?

The monitor sees calls, never results; the log has both. A *streak* here is
a tool's calls from the first repeat (streak 2) to the last call before its
streak falls back to 1, or to the end of the conversation. For each repeat
the result is compared with the result of the previous call of the same
tool and fingerprint: equal results are a loop (the model had no reason to
repeat the call), a changed result is polling or work in progress (a
candidate for ``--exempt`` or a ``--loop-key`` that keeps only the fields
that matter). A repeat whose result, or whose original's result, the log
does not show is unknown.

Memory stays bounded: per tool, the result digests of its latest calls, and
the calls still waiting for a result (the oldest forgotten beyond a limit).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from doomloop_kit.reference.ladder import ACTION_STRENGTH

from .events import Result

if TYPE_CHECKING:
    from .driver import CallResult

MAX_WAITING: Final = 10_000
"""Calls remembered while they wait for their result."""
MAX_REMEMBERED: Final = 256
"""Result digests remembered per tool (one per fingerprint, the oldest forgotten)."""


@dataclass(frozen=True)
class StreakResult:
    """One closed streak of a tool and what its results say."""

    tool: str
    first_round: int
    """The round of the first repeat (streak 2)."""
    last_round: int
    longest: float
    repeats: int
    identical: int
    changed: int
    action: str | None
    """The strongest action applied to a call of the streak, or None."""

    @property
    def results(self) -> str:
        """``changed`` (polling or progress), ``identical`` (a loop) or ``unknown``."""
        if self.changed:
            return "changed"
        return "identical" if self.identical else "unknown"


@dataclass
class _Open:
    first_round: int
    last_round: int
    longest: float
    repeats: int = 0
    identical: int = 0
    changed: int = 0
    action: str | None = None

    def closed(self, tool: str) -> StreakResult:
        return StreakResult(
            tool,
            self.first_round,
            self.last_round,
            self.longest,
            self.repeats,
            self.identical,
            self.changed,
            self.action,
        )


class ResultAwareness:
    """Follows each tool's streaks and compares the results of repeated calls."""

    def __init__(self) -> None:
        self.waiting: dict[str, tuple[str, str, bool]] = {}
        """call id -> (tool, fingerprint, is a repeat)."""
        self.latest: dict[str, dict[str, str]] = {}
        """tool -> fingerprint -> digest of the latest result."""
        self.open: dict[str, _Open] = {}
        self.closed: list[StreakResult] = []

    def called(self, call: CallResult, round: int) -> None:
        """A checkpointed client call (before its result arrives)."""
        if call.fingerprint is None or call.streak is None or call.duplicate:
            return
        repeat = call.streak >= 2
        streak = self.open.get(call.tool)
        if repeat:
            if streak is None:
                streak = self.open[call.tool] = _Open(round, round, call.streak)
            streak.last_round = round
            streak.longest = max(streak.longest, call.streak)
            streak.repeats += 1
            strength = ACTION_STRENGTH.get(call.action, -1)
            if strength > ACTION_STRENGTH.get(streak.action or "", -1):
                streak.action = call.action
        elif streak is not None:
            self.closed.append(self.open.pop(call.tool).closed(call.tool))
        if call.call_id is not None:
            self.waiting[call.call_id] = (call.tool, call.fingerprint, repeat)
            if len(self.waiting) > MAX_WAITING:
                del self.waiting[next(iter(self.waiting))]

    def result(self, result: Result) -> None:
        found = self.waiting.pop(result.call_id, None)
        if found is None:
            return
        tool, fingerprint, repeat = found
        latest = self.latest.setdefault(tool, {})
        previous = latest.pop(fingerprint, None)
        streak = self.open.get(tool)
        if repeat and previous is not None and streak is not None:
            if previous == result.digest:
                streak.identical += 1
            else:
                streak.changed += 1
        latest[fingerprint] = result.digest
        if len(latest) > MAX_REMEMBERED:
            del latest[next(iter(latest))]

    def take_closed(self) -> Iterator[StreakResult]:
        """Streaks closed since the last look, in the order they closed."""
        closed, self.closed = self.closed, []
        yield from closed

    def close_all(self) -> Iterator[StreakResult]:
        """The end of the conversation: every open streak closes, by tool name."""
        yield from self.take_closed()
        for tool in sorted(self.open):
            yield self.open[tool].closed(tool)
        self.open.clear()
