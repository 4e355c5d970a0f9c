"""JSON text as JavaScript reads and writes it (PROT-44, ENG-105).

:func:`loads` reads a text as ``JSON.parse`` does, within the bounds every
JSON input of the kit has (:data:`MAX_DEPTH`: PROT-45); :func:`stringify`
writes plain JSON as ``JSON.stringify`` does (no whitespace, members in
insertion order, numbers by ``Number::toString``, a lone surrogate as
``\\udxxx``). :func:`dumps` writes the same text for a protocol line: ASCII
only, and refusing what plain JSON cannot carry, which travels as a tag
(:mod:`.wire`).
"""

from __future__ import annotations

import itertools
import json
import math
import re
import sys
from collections.abc import Callable, Mapping
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any, Final

from .utf16 import escape_lone_surrogates
from .values import MAX_SAFE_INTEGER, number_to_string, to_double

JSON_WHITESPACE: Final = b" \t\r\n"
"""The bytes a blank protocol line may hold (RFC 8259 whitespace): it gets no answer."""

MAX_DEPTH: Final = 10_000
"""The deepest nesting of arrays and objects in any JSON text the kit reads -- a protocol
line, a vector file, a manifest, a log record, an outcomes file, an option (PROT-45).
Deeper text is refused before it is parsed; the 5,000 levels of PROT-27 fit with room."""

RECURSION_LIMIT: Final = 3 * MAX_DEPTH
"""Python's recursion limit while the kit reads or writes JSON: room for a value
:data:`MAX_DEPTH` deep to be parsed, compared and written by recursive code (CPython's
own JSON parser and writer count against it too)."""

_LONGEST_EXACT_INTEGER: Final = 400
"""Characters beyond which an integer literal is certainly beyond the doubles (the
largest finite double has 309 digits): it reads as +/-Infinity, as in JS."""


class NestingError(ValueError):
    """JSON text nested deeper than :data:`MAX_DEPTH` levels (PROT-45)."""

    def __init__(self) -> None:
        super().__init__(f"nested deeper than {MAX_DEPTH:,} levels")


_STRING: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS: Final = bytes(byte for byte in range(256) if byte not in b"[]{}")
_STEP: Final = tuple(
    {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}.get(b, 0) for b in range(256)
)


def check_depth(text: str, start: int = 0, end: int | None = None) -> None:
    """Raise :class:`NestingError` when ``text[start:end]`` nests arrays and objects
    deeper than :data:`MAX_DEPTH`. Linear in the text's length: a text with fewer
    opening brackets than that passes at once; otherwise its strings are cut out and
    the brackets left are summed up."""
    end = len(text) if end is None else end
    if text.count("[", start, end) + text.count("{", start, end) <= MAX_DEPTH:
        return
    outside = _STRING.sub("", text[start:end]).encode("utf-8", "surrogatepass")
    brackets = outside.translate(None, _NOT_BRACKETS)
    if max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0) > MAX_DEPTH:
        raise NestingError()


def deep_enough() -> None:
    """Raise Python's recursion limit to :data:`RECURSION_LIMIT` (never lower it): the
    kit's readers call it, so that JSON within :data:`MAX_DEPTH` never meets the limit."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)


def _integer(text: str) -> int | float:
    return int(text) if len(text) <= _LONGEST_EXACT_INTEGER else float(text)


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON (non-finite numbers travel as tagged values)")


DECODER: Final = json.JSONDecoder(parse_int=_integer, parse_constant=_no_constant)
"""The decoder of :func:`loads`, for a caller that reads values out of a larger text
(``raw_decode``) and checks their depth itself (:func:`check_depth`)."""


def loads(
    text: str,
    *,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
    parse_int: Callable[[str], Any] | None = None,
) -> object:
    """A JSON text read as JS ``JSON.parse`` reads it: ``NaN`` and ``Infinity`` are not
    JSON (ValueError), and an integer literal of any length is a number -- one too long
    for any double is +/-Infinity (Python would refuse more than 4,300 digits). Text
    nested deeper than :data:`MAX_DEPTH` raises :class:`NestingError`, a ValueError.

    ``object_pairs_hook`` and ``parse_int`` are :class:`json.JSONDecoder`'s (a file
    format that refuses duplicate member names, or long integers, gives its own)."""
    check_depth(text)
    deep_enough()
    decoder = DECODER
    if object_pairs_hook is not None or parse_int is not None:
        decoder = json.JSONDecoder(
            parse_int=parse_int or _integer,
            parse_constant=_no_constant,
            object_pairs_hook=object_pairs_hook,
        )
    try:
        return decoder.decode(text)
    except RecursionError:
        # CPython 3.12+ caps its C parser's recursion whatever the limit (about 1,500
        # levels in 3.12): within MAX_DEPTH the text is read without recursion instead
        return decode_flat(text, parse_int or _integer, object_pairs_hook)


_SPACES: Final = re.compile(r"[ \t\n\r]+")
_NUMBER: Final = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_WORDS: Final = {"null": None, "true": True, "false": False}
_CONSTANTS: Final = ("NaN", "Infinity", "-Infinity")


def _skip(text: str, pos: int) -> int:
    """The position of the first character at or after ``pos`` that is not whitespace."""
    space = _SPACES.match(text, pos)
    return pos if space is None else space.end()


def decode_flat(
    text: str,
    parse_int: Callable[[str], Any] = _integer,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> object:
    """What :func:`loads` reads, read with a stack of open containers instead of
    recursion: the same values (CPython's own string reader), a ValueError where
    :mod:`json` raises one. Slower than the C parser: the fallback for text deeper than
    the interpreter lets that parser go."""
    value, end = raw_decode_flat(text, _skip(text, 0), parse_int, object_pairs_hook)
    end = _skip(text, end)
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def raw_decode_flat(
    text: str,
    pos: int,
    parse_int: Callable[[str], Any] = _integer,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> tuple[Any, int]:
    """The value starting at ``pos`` and where it ends, as :func:`decode_flat` reads it
    (``raw_decode`` of :data:`DECODER` without recursion)."""
    frames: list[tuple[list[Any], str | None, bool]] = []  # items, pending key, is an object
    while True:
        char = text[pos : pos + 1]
        if char in ("[", "{"):
            pos = _skip(text, pos + 1)
            if text[pos : pos + 1] == ("]" if char == "[" else "}"):
                value: Any = [] if char == "[" else _object([], object_pairs_hook)
                pos += 1
            else:
                key = None
                if char == "{":
                    key, pos = _member_name(text, pos)
                frames.append(([], key, char == "{"))
                continue
        elif char == '"':
            value, pos = scanstring(text, pos + 1, True)
        elif number := _NUMBER.match(text, pos):
            whole, fraction, exponent = number.groups()
            value = float(number.group()) if fraction or exponent else parse_int(whole)
            pos = number.end()
        else:
            word = next((w for w in (*_WORDS, *_CONSTANTS) if text.startswith(w, pos)), None)
            if word is None:
                raise json.JSONDecodeError("Expecting value", text, pos)
            value = _WORDS[word] if word in _WORDS else _no_constant(word)
            pos += len(word)
        while True:  # the value ends its container, or another member follows
            if not frames:
                return value, pos
            items, key, is_object = frames[-1]
            items.append((key, value) if is_object else value)
            pos = _skip(text, pos)
            char = text[pos : pos + 1]
            if char == ",":
                pos = _skip(text, pos + 1)
                if is_object:
                    name, pos = _member_name(text, pos)
                    frames[-1] = (items, name, True)
                break
            if char != ("}" if is_object else "]"):
                raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
            pos += 1
            frames.pop()
            value = _object(items, object_pairs_hook) if is_object else items


def _member_name(text: str, pos: int) -> tuple[str, int]:
    """The member name at ``pos`` and the position of its value."""
    if text[pos : pos + 1] != '"':
        raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, pos)
    name, pos = scanstring(text, pos + 1, True)
    pos = _skip(text, pos)
    if text[pos : pos + 1] != ":":
        raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
    return name, _skip(text, pos + 1)


def _object(
    pairs: list[tuple[str, Any]], hook: Callable[[list[tuple[str, Any]]], Any] | None
) -> Any:
    return hook(pairs) if hook is not None else dict(pairs)


def json_problem(error: json.JSONDecodeError) -> str:
    """What the JSON parser found wrong, without the words its messages end with
    when they expect a position after them ("Unterminated string starting at")."""
    return error.msg.removesuffix(" at").removesuffix(" starting")


def problem(error: ValueError) -> str:
    """Why :func:`loads` refused a text, in a few words and without a position (the
    caller names the file and line): ``not JSON: ...`` or the nesting bound."""
    if isinstance(error, NestingError):
        return str(error)
    if isinstance(error, json.JSONDecodeError):
        return f"not JSON: {json_problem(error)}"
    return f"not JSON: {error}"


def stringify(value: object) -> str:
    """JS ``JSON.stringify`` of a JSON value, for tool outputs and transcripts (ENG-105).

    A non-finite number is written ``null`` and ``-0`` as ``0``, as JS writes
    them; a key that is not a string is written as its ``str``. Raises
    TypeError for a value that is not JSON.
    """
    parts: list[str] = []
    _write(value, parts, strict=False, depth=0)
    return "".join(parts)


def dumps(value: object) -> str:
    """Plain JSON as JS ``JSON.stringify`` writes it, strings escaped to ASCII: the
    text of a protocol line (PROT-44).

    A number is written by ``Number::toString`` of its double: ``1e+21``,
    ``1e-7``, 2^64 as ``18446744073709552000``. A non-finite number, a
    non-string key, a value that is not plain JSON or one nested deeper than
    :data:`MAX_DEPTH` levels (PROT-46) raises ValueError or TypeError (results
    carry JS-only values as tags, :func:`.wire.encode`).
    """
    parts: list[str] = []
    _write(value, parts, strict=True, depth=0)
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


def _write(value: object, out: list[str], strict: bool, depth: int) -> None:
    if value is None or value is True or value is False:
        out.append("null" if value is None else ("true" if value else "false"))
    elif isinstance(value, str):
        out.append(_string(value, strict))
    elif isinstance(value, int | float):
        out.append(_number(value, strict))
    elif strict and depth >= MAX_DEPTH and isinstance(value, list | Mapping):
        raise NestingError()  # a protocol line is never deeper than a request may be
    elif isinstance(value, list) or (isinstance(value, tuple) and not strict):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out, strict, depth + 1)
        out.append("]")
    elif isinstance(value, Mapping):
        out.append("{")
        for index, key in enumerate(property_order(value)):
            if not isinstance(key, str) and strict:
                raise TypeError(f"an object key must be a string, not {key!r}")
            out.append(("," if index else "") + _string(str(key), strict) + ":")
            _write(value[key], out, strict, depth + 1)
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
