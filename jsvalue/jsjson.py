"""JSON text as JavaScript reads and writes it (PROT-44, ENG-105).

:func:`loads` reads a text as ``JSON.parse`` does; :func:`stringify` writes
plain JSON as ``JSON.stringify`` does (no whitespace, members in insertion
order, numbers by ``Number::toString``, a lone surrogate as ``\\udxxx``).
:func:`dumps` writes the same text for a protocol line: ASCII only, and
refusing what plain JSON cannot carry, which travels as a tag (:mod:`.wire`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Final

from .utf16 import escape_lone_surrogates
from .values import MAX_SAFE_INTEGER, number_to_string, to_double

JSON_WHITESPACE: Final = b" \t\r\n"
"""The bytes a blank protocol line may hold (RFC 8259 whitespace): it gets no answer."""

_LONGEST_EXACT_INTEGER: Final = 400
"""Characters beyond which an integer literal is certainly beyond the doubles (the
largest finite double has 309 digits): it reads as +/-Infinity, as in JS."""


def _integer(text: str) -> int | float:
    return int(text) if len(text) <= _LONGEST_EXACT_INTEGER else float(text)


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON (non-finite numbers travel as tagged values)")


_DECODER: Final = json.JSONDecoder(parse_int=_integer, parse_constant=_no_constant)


def loads(text: str) -> object:
    """A JSON text read as JS ``JSON.parse`` reads it: ``NaN`` and ``Infinity`` are not
    JSON (ValueError), and an integer literal of any length is a number -- one too long
    for any double is +/-Infinity (Python would refuse more than 4,300 digits)."""
    return _DECODER.decode(text)


def stringify(value: object) -> str:
    """JS ``JSON.stringify`` of a JSON value, for tool outputs and transcripts (ENG-105).

    A non-finite number is written ``null`` and ``-0`` as ``0``, as JS writes
    them; a key that is not a string is written as its ``str``. Raises
    TypeError for a value that is not JSON.
    """
    parts: list[str] = []
    _write(value, parts, strict=False)
    return "".join(parts)


def dumps(value: object) -> str:
    """Plain JSON as JS ``JSON.stringify`` writes it, strings escaped to ASCII: the
    text of a protocol line (PROT-44).

    A number is written by ``Number::toString`` of its double: ``1e+21``,
    ``1e-7``, 2^64 as ``18446744073709552000``. A non-finite number, a
    non-string key or a value that is not plain JSON raises ValueError or
    TypeError (results carry such values as tags, :func:`.wire.encode`).
    """
    parts: list[str] = []
    _write(value, parts, strict=True)
    return "".join(parts)


def _number(value: int | float, strict: bool) -> str:
    if isinstance(value, int) and abs(value) <= MAX_SAFE_INTEGER:
        return str(value)
    number = to_double(value)
    if math.isfinite(number):
        return number_to_string(number)
    if strict:
        raise ValueError(f"not a finite number: {number!r}")
    return "null"


def _write(value: object, out: list[str], strict: bool) -> None:
    if value is None or value is True or value is False:
        out.append("null" if value is None else ("true" if value else "false"))
    elif isinstance(value, str):
        out.append(_string(value, strict))
    elif isinstance(value, int | float):
        out.append(_number(value, strict))
    elif isinstance(value, list) or (isinstance(value, tuple) and not strict):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out, strict)
        out.append("]")
    elif isinstance(value, Mapping):
        out.append("{")
        for index, key in enumerate(property_order(value)):
            if not isinstance(key, str) and strict:
                raise TypeError(f"an object key must be a string, not {key!r}")
            out.append(("," if index else "") + _string(str(key), strict) + ":")
            _write(value[key], out, strict)
        out.append("}")
    else:
        raise TypeError(f"not plain JSON: {type(value).__name__}")


def array_index(name: str) -> int | None:
    """The array index a property name denotes: the canonical decimal form of an
    integer from 0 to 2^32 - 2 (``"7"``, not ``"07"``, ``"-0"`` or ``"+7"``); else None."""
    if not (name.isascii() and name.isdigit()) or (len(name) > 1 and name[0] == "0"):
        return None
    number = int(name)
    return number if number < 2**32 - 1 else None


def property_order(members: Mapping[Any, object]) -> list[Any]:
    """An object's member names in JS property order (ECMA-262 OrdinaryOwnPropertyKeys,
    which ``JSON.stringify`` and ``Object.keys`` follow; ENG-105): the array-index
    names first, in ascending numeric order, then the others in insertion order.
    A JSON object read by JS gets its names in this order whatever the text's order."""
    keys = list(members)
    indices = [key for key in keys if isinstance(key, str) and array_index(key) is not None]
    if not indices:
        return keys
    indices.sort(key=lambda key: int(key))
    named = set(indices)
    return [*indices, *(key for key in keys if key not in named)]


def _string(text: str, strict: bool) -> str:
    """A JSON string as JS writes it (quotes, backslash and controls escaped), or for a
    protocol line everything past ASCII escaped too: the same string either way."""
    return (
        json.dumps(text) if strict else escape_lone_surrogates(json.dumps(text, ensure_ascii=False))
    )
