"""The reference engine: a deterministic tool loop over the reference monitor (spec §15).

Give :func:`run_scenario` a scenario (configuration, tool declarations,
hook handlers, the caller's request, and runs with scripted model responses
and decisions); it returns the :class:`Transcript` of what every dispatch
sent, the hook events, the tool bodies that ran, each run's end and the
persisted state (ENG-156). Each module is one concept and cites ENG ids.
"""

from .errors import OutsideDomain, RunFailed, ScenarioError
from .scenario import (
    HandlerSpec,
    RequestSpec,
    RunSpec,
    Scenario,
    ScriptedResponse,
    ToolSpec,
)
from .session import run_scenario
from .transcript import Dispatch, Execution, HookEvent, RunEnd, RunTranscript, Transcript

__all__ = [
    "Dispatch",
    "Execution",
    "HandlerSpec",
    "HookEvent",
    "OutsideDomain",
    "RequestSpec",
    "RunEnd",
    "RunFailed",
    "RunSpec",
    "RunTranscript",
    "Scenario",
    "ScenarioError",
    "ScriptedResponse",
    "ToolSpec",
    "Transcript",
    "run_scenario",
]
