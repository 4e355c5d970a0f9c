"""The JSON-lines report: one object per round, text check, server check, resume, notice,
record left out (``problem``), and switch to or from a sub-agent's conversation (``thread``).

The first object (``"type": "replay"``) names the log and the resolved
configuration, the last (``"type": "summary"``) gives the totals of
:class:`~.summary.Summary`. Objects are written as the replay goes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from doomloop_kit.jsvalue import wire
from doomloop_kit.jsvalue.utf16 import escape_lone_surrogates
from doomloop_kit.reference import ResolvedConfig, Verdict
from doomloop_kit.vectorset.writing import OutputStream

from .driver import (
    CallResult,
    ConversationResult,
    EngineResult,
    Entry,
    ResumeResult,
    RoundResult,
    ServerResult,
    SkippedCheck,
    TextResult,
    ThreadResult,
)
from .events import Notice
from .results import StreakResult
from .summary import Summary, position


def _verdict(verdict: Verdict | None) -> dict[str, Any]:
    return {} if verdict is None else {"verdict": verdict.to_json()}


def call_json(call: CallResult) -> dict[str, Any]:
    data: dict[str, Any] = {"tool": call.tool}
    if call.call_id is not None:
        data["callId"] = call.call_id
    data["identity"] = call.identity
    if call.fingerprint is not None:
        data["fingerprint"] = call.fingerprint
        data["streak"] = call.streak
        data["duplicateInRound"] = call.duplicate
    data["action"] = call.action
    data.update(_verdict(call.verdict))
    if call.notes:
        data["notes"] = list(call.notes)
    return data


def entry_json(entry: Entry) -> dict[str, Any]:
    """The report object of one entry."""
    if isinstance(entry, RoundResult):
        return {
            "type": "round",
            "round": entry.number,
            "run": entry.run,
            "runRound": entry.run_round,
            "line": entry.line,
            "action": entry.action,
            "halted": entry.halted,
            "calls": [call_json(call) for call in entry.calls],
        }
    if isinstance(entry, TextResult):
        return {
            "type": "text",
            "at": position(entry),
            "line": entry.line,
            "afterRound": entry.after_round,
            "streak": entry.streak,
            "action": entry.action,
            "halted": entry.halted,
            **_verdict(entry.verdict),
        }
    if isinstance(entry, ServerResult):
        return {
            "type": "server",
            "at": position(entry),
            "line": entry.line,
            "afterRound": entry.after_round,
            "action": entry.action,
            "halted": entry.halted,
            "calls": [call_json(call) for call in entry.calls],
        }
    if isinstance(entry, ResumeResult):
        return {
            "type": "resume",
            "line": entry.line,
            "run": entry.run,
            "givenState": entry.given_state,
            "implicit": entry.implicit,
        }
    if isinstance(entry, ConversationResult):
        return {
            "type": "conversation",
            "line": entry.line,
            "id": entry.run_id,
            "outcome": entry.outcome,
        }
    if isinstance(entry, EngineResult):
        data: dict[str, Any] = {
            "type": "engine",
            "kind": entry.kind,
            "line": entry.line,
            "afterRound": entry.after_round,
        }
        if entry.message:
            data["message"] = entry.message
        if entry.kind in ("halt", "not-replayed"):
            data["count"] = entry.count
        return data
    if isinstance(entry, StreakResult):
        return streak_json(entry)
    if isinstance(entry, SkippedCheck):
        return {
            "type": "skipped",
            "check": entry.check,
            "line": entry.line,
            "afterRound": entry.after_round,
            "reason": entry.reason,
        }
    if isinstance(entry, ThreadResult):
        return {
            "type": "thread",
            "line": entry.line,
            "name": entry.name,
            "session": entry.session,
            "mirror": entry.mirror,
            "first": entry.first,
        }
    kind = "notice" if isinstance(entry, Notice) else "problem"
    return {"type": kind, "line": entry.line, "message": entry.message}


def streak_json(streak: StreakResult) -> dict[str, Any]:
    return {
        "type": "streak",
        "tool": streak.tool,
        "fromRound": streak.first_round,
        "toRound": streak.last_round,
        "longest": streak.longest,
        "repeats": streak.repeats,
        "results": streak.results,
        "identical": streak.identical,
        "changed": streak.changed,
        "action": streak.action,
    }


def dumps(data: object) -> str:
    """A report line: UTF-8 JSON, a lone surrogate (which UTF-8 cannot hold) escaped."""
    return escape_lone_surrogates(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


class JsonReport:
    """Writes the report to ``path`` as the entries come (published at :meth:`close`)."""

    def __init__(self, path: Path, log: Path, config: ResolvedConfig) -> None:
        self.file = OutputStream(path)
        self.summary = Summary()
        header = {"type": "replay", "log": str(log), "config": wire.encode(config.to_json())}
        self.file.write(dumps(header) + "\n")

    def add(self, entry: Entry) -> None:
        self.summary.add(entry)
        self.file.write(dumps(entry_json(entry)) + "\n")

    def close(self, log_format: str | None) -> None:
        summary = {"type": "summary", "format": log_format, **self.summary.to_json()}
        self.file.write(dumps(summary) + "\n")
        self.file.commit()

    def abort(self) -> None:
        self.file.abort()
