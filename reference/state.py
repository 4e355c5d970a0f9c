"""The monitor's memory and its persisted form (spec section 10, STATE-01..STATE-34).

:class:`ToolEntry` holds one tool's streak evidence. Its first four fields
are persisted; the rest are *run-local* (meaningful only within one run) and
never written. :func:`serialize_state` writes a blob; :func:`parse_state`
reads one, fail-open: it never raises, whatever JSON value it is given.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final

from doomloop_kit.jsvalue import utf16
from doomloop_kit.jsvalue.values import finite_number, js_floor, plain_number

MAX_RESTORED_STREAK: Final = 1_000_000
"""A restored tool streak is clamped into [1, 1,000,000] (STATE-21)."""


@dataclass
class ToolEntry:
    """One tool's evidence (MON-03, MON-04)."""

    fingerprint: str
    streak: int | float
    round_set: tuple[str, ...]
    """The last round's fingerprint set, sorted; a restored set may repeat members."""
    call_streaks: dict[str, int | float]
    """fingerprint -> consecutive rounds that exact call was issued in."""

    # Run-local: never persisted, absent after a restore.
    round: float | None = None
    seen: set[str] = field(default_factory=set)
    prior_set: tuple[str, ...] | None = None
    prior_streak: int | float = 0
    prior_calls: dict[str, int | float] = field(default_factory=dict)
    prior_match: tuple[tuple[str, ...], bool] | None = None
    """Cache of ``prior_set == s`` for the one large set ``s`` of this round."""

    def to_json(self) -> dict[str, object]:
        """The persisted form of this entry (STATE-03..STATE-06)."""
        result: dict[str, object] = {"fingerprint": self.fingerprint, "streak": self.streak}
        if len(self.round_set) > 1:
            result["roundFingerprints"] = list(self.round_set)
        if not self._call_streaks_implied():
            result["callStreaks"] = dict(self.call_streaks)
        return result

    def _call_streaks_implied(self) -> bool:
        """True when the per-call counts say nothing the round does not (STATE-05)."""
        members = set(self.round_set)
        return len(self.call_streaks) == len(self.round_set) and all(
            key in members and count == self.streak for key, count in self.call_streaks.items()
        )


@dataclass
class TextStreak:
    """The cross-step text streak. A restored streak is kept as given (STATE-27)."""

    fingerprint: str
    streak: float

    def to_json(self) -> dict[str, object]:
        return {"fingerprint": self.fingerprint, "streak": self.streak}


@dataclass
class MonitorState:
    """Everything :func:`parse_state` recovers from a blob."""

    tools: dict[str, ToolEntry] = field(default_factory=dict)
    text: TextStreak | None = None
    escalations_used: int | float = 0


def serialize_state(
    tools: Mapping[str, ToolEntry], text: TextStreak | None, escalations_used: int | float
) -> dict[str, object]:
    """A fresh plain-JSON blob; nothing run-local is written (STATE-01, STATE-09)."""
    blob: dict[str, object] = {"tools": {name: entry.to_json() for name, entry in tools.items()}}
    if text is not None:
        blob["text"] = text.to_json()
    if escalations_used > 0:
        blob["escalationsUsed"] = escalations_used
    return blob


def js_entries(value: object) -> Iterator[tuple[str, object]]:
    """Members of an object, or of an array by index name; nothing else (STATE-16)."""
    if isinstance(value, Mapping):
        yield from ((str(key), member) for key, member in value.items())
    elif isinstance(value, list):
        yield from ((str(index), member) for index, member in enumerate(value))


def _streak_record(value: object) -> tuple[str, float] | None:
    """(fingerprint, streak) of an object with a string fingerprint and finite streak."""
    if not isinstance(value, Mapping):
        return None
    fingerprint = value.get("fingerprint")
    streak = finite_number(value.get("streak"))
    if not isinstance(fingerprint, str) or streak is None:
        return None
    return fingerprint, streak


def _round_set(value: object, fingerprint: str) -> tuple[str, ...]:
    """The persisted set sorted by UTF-16 code units, duplicates kept; else [fingerprint]."""
    if isinstance(value, list) and len(value) > 1 and all(isinstance(m, str) for m in value):
        return tuple(sorted(value, key=utf16.sort_key))
    return (fingerprint,)


def _call_streaks(value: object) -> dict[str, int | float]:
    """Persisted per-call counts that are finite numbers >= 1, floored (STATE-24)."""
    counts: dict[str, int | float] = {}
    for key, count in js_entries(value):
        number = finite_number(count)
        if number is not None and number >= 1:
            counts[key] = js_floor(number)
    return counts


def _tool_entry(value: Mapping[str, object], fingerprint: str, streak: float) -> ToolEntry:
    round_set = _round_set(value.get("roundFingerprints"), fingerprint)
    clamped = min(max(js_floor(streak), 1), MAX_RESTORED_STREAK)
    counts = _call_streaks(value.get("callStreaks"))
    if not counts:
        counts = {member: clamped for member in round_set}
    return ToolEntry(fingerprint, clamped, round_set, counts)


def parse_state(blob: object) -> MonitorState | None:
    """Rebuild the monitor's memory from a blob; None when it is not an object (STATE-13, STATE-14).

    Never raises. Members that fail their test are skipped; engine-owned
    members (``stopVerdict``, ``pendingSteer``) and unknown members are ignored.
    """
    if not isinstance(blob, Mapping):
        return None
    state = MonitorState()
    for name, value in js_entries(blob.get("tools")):
        record = _streak_record(value)
        if record is not None:
            assert isinstance(value, Mapping)
            state.tools[name] = _tool_entry(value, *record)
    text = _streak_record(blob.get("text"))
    if text is not None:
        state.text = TextStreak(text[0], plain_number(text[1]))
    used = finite_number(blob.get("escalationsUsed"))
    state.escalations_used = js_floor(used) if used is not None and used >= 0 else 0
    return state
