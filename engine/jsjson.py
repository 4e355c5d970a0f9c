"""JSON text as JS ``JSON.stringify`` writes it, for tool outputs (ENG-105)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping

from jcs.ntoj import convert2Es6Format  # type: ignore[import-untyped]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _string(text: str) -> str:
    """JS escaping: quotes, backslash, controls; lone surrogates as ``\\uXXXX``."""
    encoded = json.dumps(text, ensure_ascii=False)
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", encoded)


def _number(value: int | float) -> str:
    if isinstance(value, int):
        return str(value) if abs(value) <= 2**53 else _number(float(value))
    if not math.isfinite(value):
        return "null"  # JSON.stringify writes NaN and the infinities as null
    text: str = convert2Es6Format(value)
    return text


def stringify(value: object) -> str:
    """Encode a JSON value with no whitespace, members in insertion order."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        members = (f"{_string(str(key))}:{stringify(member)}" for key, member in value.items())
        return "{" + ",".join(members) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(stringify(member) for member in value) + "]"
    raise TypeError(f"not a JSON value: {type(value).__name__}")
