"""The words of a vector file: its operations, its features and its expected errors.

spec/vectors.md names the operations a step may carry, spec/features.md the
features a vector may need, spec/protocol.md#errors the error codes a step may
expect; the operations are the protocol's too (spec/protocol.md §P.6). Every
module that names an operation or a feature -- the oracle, the vector files,
the generators, the runner's protocol messages, the harnesses -- takes the
name from here, and tests check these names against ``spec/schema/``.

:func:`features_of` and :func:`uses_js_coercion` say which features an input
needs (CONF-11): a vector's ``features`` are computed, never typed by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from doomloop_kit.jsvalue.utf16 import has_lone_surrogate
from doomloop_kit.jsvalue.values import MAX_SAFE_INTEGER, is_number
from doomloop_kit.jsvalue.wire import TAG

# -- operations (spec/protocol.md §P.6) ------------------------------------------

MONITOR_OPS: Final = (
    "declareRound",
    "recordToolCall",
    "recordAssistantText",
    "resetTextStreak",
    "canEscalate",
    "consumeEscalation",
    "getState",
    "restore",
    "bindObject",
    "setMember",
)
"""Operations on one monitor: a protocol session; a vector of them carries ``option``."""

ENGINE_OP: Final = "runScenario"
"""The engine-level operation (PROT-31): a whole scenario, no session; an engine
vector is one step of it (spec/vectors.md#engine-vectors)."""

FUNCTION_OPS: Final = (
    "resolveOption",
    "resolveLoopKey",
    "canonicalize",
    "fingerprintKeyMaterial",
    "fingerprintToolCall",
    "detectTextRepetition",
    "resolveLadderAction",
    ENGINE_OP,
)
"""Operations that need no monitor."""

RESUME_OP: Final = "resume"
"""The composed step (PROT-18): save the state, round-trip it as JSON text, build a new
monitor from it. Not a protocol operation: the runner sends it as three."""

# -- features (spec/features.md) ---------------------------------------------------

ENGINE_FEATURE: Final = "engine"
"""The feature every engine vector needs: the engine level, operation ``runScenario``."""

FEATURES: Final = (
    "undefined",
    "non-finite-numbers",
    "negative-zero",
    "bigint",
    "function-values",
    "loop-key-functions",
    "circular-references",
    "deep-nesting",
    "lone-surrogates",
    "large-integers",
    "json-own-members",
    "js-inherited-members",
    "js-coercion",
    "shared-objects",
    "object-identity",
    ENGINE_FEATURE,
)
"""The controlled feature vocabulary, in the order spec/features.md lists it."""

OP_FEATURES: Final = {"bindObject": "object-identity", "setMember": "object-identity"}
"""Operations that need a feature whatever their inputs (PROT-36, PROT-38)."""

MEMBER_RULES: Final = frozenset({"json-own-members", "js-inherited-members"})
"""The features that mark an expectation rather than an input encoding (CONF-11):
declared by hand, never computed from an input (CONF-13)."""

# -- expected errors (spec/protocol.md#errors) ----------------------------------------

EXPECTED_ERRORS: Final = ("canonicalization", "type-error", "bad-scenario")
"""Error codes that are an expected outcome, compared like results (PROT-20, PROT-23,
PROT-31)."""

UNDECODABLE: Final = "bad-request"
"""The code of a request carrying an undecodable tagged value: compared like the
expected outcomes when a step expects it (PROT-40), an error of the vector otherwise."""


class OpError(Exception):
    """An operation that ends in an error response: ``code`` (PROT-20) and the message.

    The oracle raises it, and so does a Python port served by
    :func:`doomloop_kit.conformance.serve` (which names it ``PortError``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class UndecodableInput(OpError):
    """``bad-request`` for an input member holding an undecodable tagged value: the one
    ``bad-request`` a vector may expect (PROT-40)."""

    def __init__(self, message: str) -> None:
        super().__init__(UNDECODABLE, message)


# -- the features an input needs ------------------------------------------------------


def features_of(value: object) -> set[str]:
    """The features a tagged JSON value needs (spec/features.md): its tags, its lone
    surrogates and its integers beyond +/-2^53."""
    found: set[str] = set()
    _scan(value, found)
    return found


def _scan(value: object, found: set[str]) -> None:
    if isinstance(value, str):
        if has_lone_surrogate(value):
            found.add("lone-surrogates")
    elif is_number(value) and isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
        found.add("large-integers")
    elif isinstance(value, list):
        for item in value:
            _scan(item, found)
    elif isinstance(value, Mapping):
        for key in value:
            _scan(key, found)
        if TAG in value and (feature := _tag_feature(value)) != "core":
            found.add(feature)
        for member in value.values():
            _scan(member, found)


_TAG_FEATURES: Final = {
    "undefined": "undefined",
    "bigint": "bigint",
    "function": "function-values",
    "symbol": "function-values",
    "ref": "circular-references",
    "nest": "deep-nesting",
    "anchor": "shared-objects",
    "alias": "shared-objects",
    "bound": "object-identity",
}
"""The feature of each tag kind (:mod:`doomloop_kit.jsvalue.wire`) but ``number``."""


def _tag_feature(value: Mapping[str, object]) -> str:
    kind = value[TAG]
    if kind == "number":
        return "negative-zero" if value.get("value") == "-0" else "non-finite-numbers"
    if kind == "function" and ("returns" in value or "throws" in value):
        return "loop-key-functions"
    return _TAG_FEATURES.get(str(kind), "core")


TEXT_NUMBER_OPTIONS: Final = (
    "maxPeriodTokens",
    "minRepeats",
    "minCoveredTokens",
    "maxWindowTokens",
)
"""The text options JS coerces to a number (CFG-45, TXT-22)."""


def _given(members: object, name: str) -> object:
    """A tagged JSON member that is given: neither absent, undefined nor null."""
    if not isinstance(members, Mapping) or TAG in members:
        return None
    value = members.get(name)
    return None if value is None or value == {TAG: "undefined"} else value


def _is_number(value: object) -> bool:
    return is_number(value) or (isinstance(value, Mapping) and value.get(TAG) == "number")


def _coerced_text(options: object, *, enabled: bool) -> bool:
    numbers = (_given(options, name) for name in TEXT_NUMBER_OPTIONS)
    if any(value is not None and not _is_number(value) for value in numbers):
        return True
    flag = _given(options, "enabled") if enabled else None
    return flag is not None and not isinstance(flag, bool)


def uses_js_coercion(request: Mapping[str, object]) -> bool:
    """True when a request (tagged JSON, ``op`` and inputs) needs feature ``js-coercion``
    (CFG-45): a text option that is not a number, a non-boolean ``text.enabled``
    (``create``/``resolveOption``/``resume`` options, ``detectTextRepetition``),
    or a non-boolean ``allowEscalate`` (``resolveLadderAction``, PROT-28)."""
    op = request.get("op")
    if op == "detectTextRepetition":
        return _coerced_text(_given(request, "options"), enabled=False)
    if op == "resolveLadderAction":
        flag = request.get("allowEscalate", True)  # null is read by truthiness too
        return flag != {TAG: "undefined"} and not isinstance(flag, bool)
    if op in ("create", "resolveOption"):
        return _coerced_text(_given(_given(request, "option"), "text"), enabled=True)
    return False
