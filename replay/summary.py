"""What a whole replay comes to: when each rung first fired, how many calls were blocked.

The numbers a user needs to choose a ladder (the sweep prints one row of them
per ladder). Positions are round numbers; a text check of a response without
calls is ``<n>t`` and a server check ``<n>s``, ``n`` being the last round
before it; in a sub-agent's conversation (its own rounds) the position is
prefixed with its name, ``agent-a93ccab:4``. What the log held besides
(sub-agents, warnings, records left out) is counted too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from doomloop_kit.reference import RUNGS

from .driver import (
    EngineResult,
    Entry,
    RoundResult,
    ServerResult,
    SkippedCheck,
    TextResult,
    ThreadResult,
)
from .events import Notice, Skipped
from .results import StreakResult


def position(entry: RoundResult | TextResult | ServerResult) -> str:
    """Where an entry sits in the replay, as the timeline and the sweep print it."""
    if isinstance(entry, RoundResult):
        return str(entry.number)
    if isinstance(entry, TextResult):
        return str(entry.after_round + 1) if entry.in_round else f"{entry.after_round}t"
    return f"{entry.after_round}s"


STREAK_KINDS = ("identical", "changed", "unknown")


@dataclass
class Summary:
    """Totals over the entries seen so far (constant memory)."""

    rounds: int = 0
    calls: int = 0
    blocked: int = 0
    text_checks: int = 0
    first: dict[str, str] = field(default_factory=dict)
    """rung -> position of its first verdict (tool, server or text)."""
    streaks: dict[str, int] = field(default_factory=dict)
    """Closed streaks by what their results say: identical, changed, unknown."""
    engine: dict[str, int] = field(default_factory=dict)
    """``--engine``: steer injections, escalations, halts."""
    skipped_checks: list[SkippedCheck] = field(default_factory=list)
    """The checks the engine could not run: the replay is incomplete."""
    sub_agents: int = 0
    notices: int = 0
    skipped: int = 0
    """Records left out (problems)."""
    thread: str | None = None

    def add(self, entry: Entry) -> None:
        if isinstance(entry, SkippedCheck):
            self.skipped_checks.append(entry)
        if isinstance(entry, ThreadResult):
            self.thread = entry.name
            self.sub_agents += entry.first and entry.name is not None
            return
        if isinstance(entry, Notice | Skipped):
            self.notices += isinstance(entry, Notice)
            self.skipped += isinstance(entry, Skipped)
            return
        if isinstance(entry, StreakResult):
            self.streaks[entry.results] = self.streaks.get(entry.results, 0) + 1
            return
        if isinstance(entry, EngineResult):
            if entry.kind != "not-replayed":
                self.engine[entry.kind] = self.engine.get(entry.kind, 0) + 1
            return
        if isinstance(entry, RoundResult):
            self.rounds += 1
            self.calls += len(entry.calls)
            self.blocked += sum(call.blocked for call in entry.calls)
            actions = [call.verdict.action for call in entry.calls if call.verdict is not None]
        elif isinstance(entry, ServerResult):
            actions = [call.verdict.action for call in entry.calls if call.verdict is not None]
        elif isinstance(entry, TextResult):
            self.text_checks += 1
            actions = [] if entry.verdict is None else [entry.verdict.action]
        else:
            return
        where = position(entry) if self.thread is None else f"{self.thread}:{position(entry)}"
        for action in actions:
            self.first.setdefault(action, where)

    def firsts(self) -> list[tuple[str, str | None]]:
        """Every rung in ladder order with the position where it first fired (or None)."""
        return [(rung, self.first.get(rung)) for rung in RUNGS]

    def to_json(self) -> dict[str, object]:
        checks = {"skippedChecks": len(self.skipped_checks)} if self.skipped_checks else {}
        return {
            "rounds": self.rounds,
            "calls": self.calls,
            "blocked": self.blocked,
            "textChecks": self.text_checks,
            "firstFired": {rung: where for rung, where in self.firsts() if where is not None},
            "streaks": {kind: self.streaks.get(kind, 0) for kind in STREAK_KINDS},
            "engine": dict(sorted(self.engine.items())),
            "subAgents": self.sub_agents,
            "notices": self.notices,
            "skipped": self.skipped,
            **checks,  # only when the engine skipped a check: the replay is incomplete
        }
