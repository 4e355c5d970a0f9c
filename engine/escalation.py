"""The escalation latch and the one-dispatch request overrides (ENG-70..ENG-77)."""

from __future__ import annotations

from collections.abc import Mapping

from doomloop_kit.reference import UNDEFINED, EscalationConfig, Verdict

from . import texts

ADVISOR_TOOL = "openrouter:advisor"


class EscalationLatch:
    """At most one pending escalation per window; never persisted (ENG-70, ENG-76)."""

    def __init__(self) -> None:
        self.pending: Verdict | None = None

    def arm(self, verdict: Verdict) -> bool:
        """Latch the verdict unless one is pending; True when this one latched (ENG-70)."""
        if self.pending is not None:
            return False
        self.pending = verdict
        return True

    def take(self) -> Verdict | None:
        """Clear the latch and return what was pending (ENG-71)."""
        verdict, self.pending = self.pending, None
        return verdict

    def drop(self) -> None:
        """A stop, pause or run end loses the latch, spending nothing (ENG-76)."""
        self.pending = None


def apply_overrides(
    request: dict[str, object], escalation: EscalationConfig, verdict: Verdict
) -> bool:
    """Merge the model and advisor overrides into one dispatch's request (ENG-72, ENG-73).

    Returns True when the advisor override replaced the tool choice (ENG-74).
    """
    if escalation.model is not UNDEFINED:
        request["model"] = escalation.model
        request.pop("models", None)
    advisor = escalation.advisor
    if advisor is UNDEFINED or advisor is False:
        return False
    parameters: dict[str, object] = {
        "forwardTranscript": True,
        "instructions": texts.advisor_instructions(verdict.message),
    }
    if isinstance(advisor, Mapping):
        parameters.update(advisor)
    tools = request.get("tools")
    request["tools"] = [
        *(tools if isinstance(tools, list) else []),
        {"type": ADVISOR_TOOL, "parameters": parameters},
    ]
    request["toolChoice"] = {
        "type": "allowed_tools",
        "mode": "required",
        "tools": [{"type": ADVISOR_TOOL}],
    }
    return True
