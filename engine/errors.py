"""The errors of the engine: a malformed scenario (ENG-23) and a run that fails (ENG-20).

A malformed scenario is refused before any run starts. A run that fails
ends with ``end.error``, whose ``kind`` is one of :data:`RUN_ERROR_KINDS`
(ENG-141); its message is informative.
"""

from __future__ import annotations

from typing import Final


class ScenarioError(ValueError):
    """A scenario that is not well formed; the message names the offending part (ENG-23)."""


class OutsideDomain(ScenarioError):
    """The run reached a case the engine level leaves out of its domain (ENG-151).

    Raised while running, not while reading: the case depends on what the
    run did (a decision naming a pending call twice, an approval pause
    beside a HITL call). Vectors never hold such a scenario; of a line of
    the SDK's corpus that reaches one, only the runs before it are compared.
    ``run`` is the index of the run that left the domain and ``before`` the
    transcript of the runs before it, both set by
    :func:`~doomloop_kit.engine.run_scenario`.
    """

    run: int = 0
    before: object = None


SCRIPT_EXHAUSTED: Final = "script-exhausted"
"""A dispatch found the scripted model exhausted (ENG-20)."""
INVALID_FINAL_RESPONSE: Final = "invalid-final-response"
"""The run ended on a response with no output item and nothing retried it (ENG-142)."""
APPROVAL_NEEDS_STATE: Final = "approval-needs-state-accessor"
"""A response needs approval but the run has no state accessor (ENG-143)."""
DECISIONS_NEED_STATE: Final = "decisions-need-state-accessor"
"""A decision resume without a state accessor (ENG-143)."""
TYPE_ERROR: Final = "type-error"
"""JS reads a member of ``null``: the persisted ``doomLoop`` member (ENG-144) or the
``doomLoop`` option (ENG-176) is ``null``."""

RUN_ERROR_KINDS: Final = (
    SCRIPT_EXHAUSTED,
    INVALID_FINAL_RESPONSE,
    APPROVAL_NEEDS_STATE,
    DECISIONS_NEED_STATE,
    TYPE_ERROR,
)


class RunFailed(Exception):
    """The run fails: it ends with ``end.error`` (ENG-20, ENG-141).

    ``dispatch`` is the index of the failed dispatch for ``script-exhausted``;
    ``before_run`` marks a failure while the run is being built, before it exists
    (ENG-143, ENG-176): its end has no reason and its transcript no ``config``.
    """

    def __init__(
        self, kind: str, message: str, dispatch: int | None = None, *, before_run: bool = False
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.dispatch = dispatch
        self.before_run = before_run

    def to_json(self) -> dict[str, object]:
        """``{"kind", "dispatch"?}`` (ENG-141); the message is not part of the transcript."""
        error: dict[str, object] = {"kind": self.kind}
        if self.dispatch is not None:
            error["dispatch"] = self.dispatch
        return error
