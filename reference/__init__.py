"""The readable Python reference of the doom-loop monitor.

Each module is one concept of the spec (``spec/``); docstrings cite the
statement ids they implement. The public API mirrors the TypeScript module
with Pythonic names; every result object has ``to_json()`` giving the wire
shape (camelCase keys).
"""

from doomloop_kit.jsvalue.values import UNDEFINED, JsBigInt, JsFunction

from .canonical import (
    MAX_CANONICALIZE_DEPTH,
    CanonicalizationError,
    CanonicalizationErrorKind,
    canonicalize,
)
from .config import (
    DEFAULT_DOOM_LOOP_LADDER,
    DEFAULT_MAX_ESCALATIONS,
    RUNGS,
    ConfigWarning,
    EscalationConfig,
    Ladder,
    OptionError,
    OptionResolution,
    ResolvedConfig,
    TextOptions,
    resolve_doom_loop_option,
)
from .fingerprint import fingerprint_key_material, fingerprint_tool_call
from .ladder import Action, resolve_ladder_action
from .loop_keys import LoopKeyResolution, resolve_loop_key_material
from .monitor import DoomLoopMonitor, ToolCall
from .state import MAX_RESTORED_STREAK
from .text import TextRepetition, detect_text_repetition
from .verdicts import CallRecord, DetectorKind, Verdict

__all__ = [
    "DEFAULT_DOOM_LOOP_LADDER",
    "DEFAULT_MAX_ESCALATIONS",
    "MAX_CANONICALIZE_DEPTH",
    "MAX_RESTORED_STREAK",
    "RUNGS",
    "UNDEFINED",
    "Action",
    "CallRecord",
    "CanonicalizationError",
    "CanonicalizationErrorKind",
    "ConfigWarning",
    "DetectorKind",
    "DoomLoopMonitor",
    "EscalationConfig",
    "JsBigInt",
    "JsFunction",
    "Ladder",
    "LoopKeyResolution",
    "OptionError",
    "OptionResolution",
    "ResolvedConfig",
    "TextOptions",
    "TextRepetition",
    "ToolCall",
    "Verdict",
    "canonicalize",
    "detect_text_repetition",
    "fingerprint_key_material",
    "fingerprint_tool_call",
    "resolve_doom_loop_option",
    "resolve_ladder_action",
    "resolve_loop_key_material",
]
