"""The monitor's results: verdicts and call records, with their wire shape (MON-36, MON-37)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .ladder import Action

DetectorKind = Literal[
    "tool-fingerprint", "server-tool-fingerprint", "text-repetition", "text-streak"
]


@dataclass(frozen=True)
class Verdict:
    """A detection: which detector, what action, and the message for the model."""

    detector: DetectorKind
    action: Action
    streak: float
    fingerprint: str
    message: str
    tool_name: str | None = None

    def to_json(self) -> dict[str, object]:
        result: dict[str, object] = {
            "detector": self.detector,
            "action": self.action,
            "streak": self.streak,
            "fingerprint": self.fingerprint,
        }
        if self.tool_name is not None:
            result["toolName"] = self.tool_name
        result["message"] = self.message
        return result


@dataclass(frozen=True)
class CallRecord:
    """The result of recording one tool call (MON-36)."""

    fingerprint: str
    streak: int | float
    duplicate_in_round: bool
    verdict: Verdict | None = None

    def to_json(self) -> dict[str, object]:
        result: dict[str, object] = {
            "fingerprint": self.fingerprint,
            "streak": self.streak,
            "duplicateInRound": self.duplicate_in_round,
        }
        if self.verdict is not None:
            result["verdict"] = self.verdict.to_json()
        return result
