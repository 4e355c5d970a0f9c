"""What a recorded line needs, and the rules that put lines outside the kit's domain.

Each :class:`Rule` cites the statement that excludes its lines; nothing is
excluded line by line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from doomloop_kit.vectorset import oracle
from doomloop_kit.vectorset.vocabulary import (
    ENGINE_FEATURE,
    ENGINE_OP,
    FEATURES,
    features_of,
    uses_js_coercion,
)

from .answers import outside_engine_domain
from .recordings import Line


@dataclass(frozen=True)
class Rule:
    """An exclusion: the lines it matches are outside the domain by ``statement``."""

    name: str
    statement: str
    reason: str
    matches: Callable[[Line, frozenset[str], frozenset[str]], bool]
    """(line, the features the line needs, the features the harness declares) -> excluded?"""


_INPUTS_IGNORED: Final = ("id", "op", "session")


def needs(line: Line) -> frozenset[str]:
    """The features a line's own request needs (spec/features.md): those its
    tagged inputs reveal, ``js-coercion`` (CFG-45), and ``js-inherited-members``
    when a field list names an inherited member absent from ``args`` (KEY-23)."""
    request = line.request if isinstance(line.request, Mapping) else {}
    found: set[str] = set()
    for name, value in request.items():
        if name not in _INPUTS_IGNORED:
            found |= features_of(value)
    if uses_js_coercion(request):
        found.add("js-coercion")
    if oracle.needs_member_rule(request):
        found.add("js-inherited-members")
    if request.get("op") == ENGINE_OP:
        found.add(ENGINE_FEATURE)
    return frozenset(found)


_NEGATIVE_ZERO: Final = {"$js": "number", "value": "-0"}
_JSON_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"')
_ID_MEMBER: Final = re.compile(r'^\{"":\s*-?[0-9.eE+]+\s*,')
_BARE_NEGATIVE_ZERO: Final = re.compile(r"[:\[,]\s*-0\s*[,\]}]")


def _holds(value: Any, wanted: Any) -> bool:
    if value == wanted and type(value) is type(wanted):
        return True
    if isinstance(value, float) and value == 0 and math.copysign(1.0, value) < 0:
        return bool(wanted == _NEGATIVE_ZERO)
    if isinstance(value, Mapping):
        return any(_holds(member, wanted) for member in value.values())
    if isinstance(value, list):
        return any(_holds(item, wanted) for item in value)
    return False


def raw_negative_zero(line: Line) -> bool:
    """The request carried a bare ``-0`` token in an input (PROT-29, DIV-12).

    Seen either in the raw request text, or -- where the recording wrote the
    request after a JSON reader had already turned that token into ``0`` -- in
    an SDK answer holding a negative zero that no input of the request holds.
    """
    values = _JSON_STRING.sub('""', line.raw)
    values = _ID_MEMBER.sub("", values, count=1)  # an id of -0 is the id 0 (PROT-24)
    if _BARE_NEGATIVE_ZERO.search(values):
        return True
    return _holds(line.sdk, _NEGATIVE_ZERO) and not _holds(line.request, _NEGATIVE_ZERO)


_FEATURE_STATEMENTS: Final = {"js-coercion": "CFG-45", "js-inherited-members": "KEY-23"}
"""The statement that puts a feature's inputs outside the core domain; CONF-05 otherwise."""


def _undeclared(feature: str) -> Rule:
    return Rule(
        f"needs {feature}",
        _FEATURE_STATEMENTS.get(feature, "CONF-05"),
        f"the request needs feature {feature}, which the harness does not declare",
        lambda line, needed, declared: feature in needed and feature not in declared,
    )


SDK_0_9_0_RULES: Final = (
    Rule(
        "raw -0 token",
        "PROT-29",
        "a bare -0 number token is outside the protocol's input domain (DIV-12)",
        lambda line, needed, declared: raw_negative_zero(line),
    ),
    *(_undeclared(feature) for feature in FEATURES),  # `engine` first: CONF-05
    Rule(
        "outside the engine level's domain",
        "ENG-151",
        "its first run decides a pending call twice, pauses for approval beside a call of a "
        "hitl tool, or approves a call of a hitl tool whose body returns null",
        lambda line, needed, declared: outside_engine_domain(line),
    ),
)
"""Every exclusion the replay of the SDK 0.9.0 recordings applies."""
