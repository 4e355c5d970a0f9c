"""The canonical form of key material: RFC 8785 (JCS) as JavaScript makes it.

Spec section 5 (CAN-01..CAN-36). The ``jcs`` package is used for what it gets right
-- ECMAScript number formatting and JSON string escaping -- and this module
closes its measured gaps explicitly:

* lone surrogates: ``jcs`` cannot encode them; JS escapes each as ``\\udxxx``;
* member order: by UTF-16 code units, also for keys holding lone surrogates;
* integers beyond the double range: an error here, as JS sees Infinity;
* the nesting limit, circular references and the JS-only values of
  :mod:`doomloop_kit.jsvalue.values`, which ``jcs`` knows nothing about.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Final

import jcs  # type: ignore[import-untyped]
from doomloop_kit.jsvalue import utf16
from doomloop_kit.jsvalue.values import (
    UNDEFINED,
    JsBigInt,
    JsFunction,
    is_number,
    number_to_string,
    to_double,
)

from . import messages

MAX_CANONICALIZE_DEPTH: Final = 64
"""Deepest accepted nesting; the root is depth 0 (CAN-15, CAN-16)."""


class CanonicalizationErrorKind(Enum):
    """Why key material has no canonical form; each kind has its exact message (CAN-35)."""

    DEPTH = "depth"
    CIRCULAR = "circular"
    NON_FINITE = "non-finite"
    BIGINT = "bigint"
    UNSUPPORTED = "unsupported"


_MESSAGES: Final = {
    CanonicalizationErrorKind.DEPTH: messages.CANONICAL_DEPTH,
    CanonicalizationErrorKind.CIRCULAR: messages.CANONICAL_CIRCULAR,
    CanonicalizationErrorKind.NON_FINITE: messages.CANONICAL_NON_FINITE,
    CanonicalizationErrorKind.BIGINT: messages.CANONICAL_BIGINT,
}


class CanonicalizationError(ValueError):
    """Key material that RFC 8785 cannot represent; ``str()`` is the SDK's message
    (CAN-31..CAN-34). ``detail`` is for humans only."""

    def __init__(self, kind: CanonicalizationErrorKind, detail: str) -> None:
        super().__init__(_MESSAGES.get(kind, f"Cannot canonicalize {detail}"))
        self.kind = kind
        self.detail = detail


def _string(text: str) -> str:
    """A JSON string literal exactly as ``JSON.stringify`` writes it (CAN-06, CAN-25..CAN-28):
    RFC 8785's escapes, and a lone surrogate as ``\\udxxx`` (CAN-26)."""
    literal: str = jcs.canonicalize(utf16.normalize(text), utf8=False)
    return utf16.escape_lone_surrogates(literal)


def _number(value: int | float) -> str:
    number = to_double(value)
    if not math.isfinite(number):
        raise CanonicalizationError(CanonicalizationErrorKind.NON_FINITE, repr(value))
    return number_to_string(number)


def _dropped(value: object) -> bool:
    """Members holding these are left out of objects (CAN-11).

    Any callable counts as a JS function, a loop-key function in data form too.
    """
    return value is UNDEFINED or isinstance(value, JsFunction) or callable(value)


def _visit(value: object, depth: int, ancestors: set[int]) -> str:
    if depth > MAX_CANONICALIZE_DEPTH:
        raise CanonicalizationError(
            CanonicalizationErrorKind.DEPTH, f"nesting deeper than {MAX_CANONICALIZE_DEPTH}"
        )
    if value is None or _dropped(value):
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if is_number(value):
        assert isinstance(value, int | float)
        return _number(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, JsBigInt):
        raise CanonicalizationError(CanonicalizationErrorKind.BIGINT, f"{value.digits}n")
    if isinstance(value, Mapping | list | tuple):
        return _container(value, depth, ancestors)
    raise CanonicalizationError(CanonicalizationErrorKind.UNSUPPORTED, type(value).__name__)


def _container(
    value: Mapping[object, object] | Sequence[object], depth: int, ancestors: set[int]
) -> str:
    marker = id(value)
    if marker in ancestors:
        raise CanonicalizationError(CanonicalizationErrorKind.CIRCULAR, "a value contains itself")
    ancestors.add(marker)
    try:
        if isinstance(value, Mapping):
            members = [
                (utf16.sort_key(str(key)), str(key), member)
                for key, member in value.items()
                if not _dropped(member)
            ]
            members.sort(key=lambda item: item[0])
            body = ",".join(
                _string(key) + ":" + _visit(member, depth + 1, ancestors)
                for _, key, member in members
            )
            return "{" + body + "}"
        return "[" + ",".join(_visit(item, depth + 1, ancestors) for item in value) + "]"
    finally:
        ancestors.discard(marker)


def canonicalize(value: object) -> str:
    """The RFC 8785 canonical JSON text of ``value`` (CAN-01).

    Raises :class:`CanonicalizationError` for nesting deeper than
    :data:`MAX_CANONICALIZE_DEPTH`, circular references, non-finite numbers
    and bigints.
    """
    return _visit(value, 0, set())
