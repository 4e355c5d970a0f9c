"""JavaScript values that plain JSON cannot carry, and the JS number rules.

The monitor is specified over the JSON data model (spec DATA-01, DATA-20). A few
operations also see values only JavaScript has; the reference models them
with the small types below so that every spec statement has a Python form:

* ``UNDEFINED`` -- JS ``undefined`` (a member holding it is dropped by the
  canonical form, an array element holding it becomes ``null``).
* ``JsFunction`` -- a JS function or symbol used as a *value* (treated like
  ``undefined`` by the canonical form).
* ``JsBigInt`` -- a JS ``bigint``; the canonical form rejects it.

NaN, +/-Infinity and -0 are ordinary Python floats.
"""

from __future__ import annotations

import contextlib
import math
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final

from jcs.ntoj import convert2Es6Format  # type: ignore[import-untyped]


class _Undefined:
    """The single JS ``undefined`` value (spec DATA-20)."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"


UNDEFINED: Final = _Undefined()


@dataclass(frozen=True)
class JsFunction:
    """A JS function or symbol appearing as a value; ``label`` is for humans only."""

    label: str = "function"


@dataclass(frozen=True)
class JsBigInt:
    """A JS ``bigint`` (e.g. ``10n``); RFC 8785 has no form for it.

    A bigint has no size limit in JS; Python refuses to convert integers of
    more than 4,300 decimal digits to and from text unless told otherwise, so
    the decimal form goes through :meth:`from_digits` and :attr:`digits`
    (PROT-26).
    """

    value: int

    @classmethod
    def from_digits(cls, digits: str) -> JsBigInt:
        """The bigint written ``digits`` (``-?[0-9]+``), of any length."""
        with _any_length_integers():
            return cls(int(digits))

    @property
    def digits(self) -> str:
        """The decimal form, as JS ``String(value)`` writes it."""
        with _any_length_integers():
            return str(self.value)


@contextlib.contextmanager
def _any_length_integers() -> Iterator[None]:
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(limit)


MAX_SAFE_INTEGER: Final = 2**53


def is_number(value: object) -> bool:
    """True for a JSON number (Python int or float, never bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def to_double(value: int | float) -> float:
    """Return the IEEE-754 double a JS ``JSON.parse`` would produce (DATA-10, DATA-11, DATA-12).

    Integers beyond +/-2^53 round to the nearest double (ties to even, which
    is what ``float(int)`` does); integers beyond the double range become
    +/-Infinity, as ``JSON.parse`` makes them.
    """
    if isinstance(value, float):
        return value
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def finite_number(value: object) -> float | None:
    """The double of a finite JSON number, or None for anything else."""
    if not is_number(value):
        return None
    assert isinstance(value, int | float)
    number = to_double(value)
    return number if math.isfinite(number) else None


def plain_number(number: float) -> int | float:
    """A double as the plainest Python number: an int when integral and safe."""
    if number.is_integer() and abs(number) <= MAX_SAFE_INTEGER:
        return int(number)
    return number


def js_floor(number: float) -> int:
    """``Math.floor`` of a finite double, as an exact Python int."""
    return math.floor(number)


def number_to_string(value: int | float) -> str:
    """ECMAScript ``Number::toString`` of a finite number (CAN-04, CAN-23, CAN-24, MSG-03).

    Delegates to the ``jcs`` package's formatter, which matches JS on every
    finite double; integers are first taken to their double (DATA-11).
    """
    number = to_double(value)
    if not math.isfinite(number):
        raise ValueError(f"not a finite number: {number!r}")
    result: str = convert2Es6Format(number)
    return result


class JsTypeError(TypeError):
    """Where the JS package throws a ``TypeError`` (CFG-41, CFG-42, CFG-43, TXT-23).

    The protocol reports it as the error code ``type-error`` (PROT-23).
    """


def increment(count: int | float) -> int | float:
    """``count + 1`` in double arithmetic (MON-58): past 2^53 it no longer changes."""
    return plain_number(float(count) + 1.0)


def is_symbol(value: object) -> bool:
    return isinstance(value, JsFunction) and value.label == "symbol"


def truthy(value: object) -> bool:
    """JS ``Boolean(value)`` (MON-59, PROT-28): false, 0, -0, NaN, "", null,
    undefined and 0n are falsy; everything else, ``[]`` and ``{}`` included, is truthy."""
    if value is None or value is UNDEFINED or value is False:
        return False
    if is_number(value):
        assert isinstance(value, int | float)
        number = to_double(value)
        return not (number == 0 or math.isnan(number))
    if isinstance(value, str):
        return value != ""
    if isinstance(value, JsBigInt):
        return value.value != 0
    return True


_JS_SPACE: Final = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_DECIMAL: Final = re.compile(
    r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)", re.ASCII
)
_RADIX: Final = {
    "0x": (16, re.compile("[0-9a-fA-F]+")),
    "0o": (8, re.compile("[0-7]+")),
    "0b": (2, re.compile("[01]+")),
}


def _string_to_number(text: str) -> float:
    """ECMAScript StringToNumber: trimmed decimal, ``Infinity`` or 0x/0o/0b literal, else NaN."""
    text = text.strip(_JS_SPACE)
    if text == "":
        return 0.0
    unsigned = text.lstrip("+-")
    if unsigned == "Infinity" and len(text) - len(unsigned) <= 1:
        return -math.inf if text[0] == "-" else math.inf
    radix = _RADIX.get(text[:2].lower())
    if radix is not None:
        base, digits = radix
        return to_double(int(text[2:], base)) if digits.fullmatch(text[2:]) else math.nan
    return float(text) if _DECIMAL.fullmatch(text) else math.nan


def _array_to_string(value: list[object], seen: set[int]) -> str:
    """``Array.prototype.join(",")``: null/undefined elements are empty; cycles are empty."""
    if id(value) in seen:
        return ""
    seen.add(id(value))
    try:
        parts = []
        for item in value:
            if item is None or item is UNDEFINED:
                parts.append("")
            elif isinstance(item, list):
                parts.append(_array_to_string(item, seen))
            else:
                parts.append(js_string(item))
        return ",".join(parts)
    finally:
        seen.discard(id(value))


def js_string(value: object) -> str:
    """JS ``String(value)`` (MSG-09, TXT-22, ENG-106); a symbol throws :class:`JsTypeError`."""
    if isinstance(value, str):
        return value
    if value is None or value is UNDEFINED:
        return "null" if value is None else "undefined"
    if isinstance(value, list):
        return _array_to_string(value, set())
    if value is True or value is False:
        return "true" if value else "false"
    if is_number(value):
        assert isinstance(value, int | float)
        number = to_double(value)
        if math.isnan(number):
            return "NaN"
        if math.isinf(number):
            return "Infinity" if number > 0 else "-Infinity"
        return number_to_string(number)
    if isinstance(value, JsBigInt):
        return value.digits
    if is_symbol(value):
        raise JsTypeError("Cannot convert a Symbol value to a string")
    if isinstance(value, Mapping):
        return "[object Object]"
    return "function () {}"  # a function: its source text, never a number


def to_numeric(value: object) -> float | int:
    """ECMAScript ToNumeric as a relational comparison applies it (TXT-20, TXT-22).

    A number is its double; a bigint stays an exact Python int (it compares
    mathematically); other values go through ToPrimitive then ToNumber. A
    symbol throws :class:`JsTypeError`.
    """
    if isinstance(value, JsBigInt):
        return value.value
    return to_number(value)


def to_number(value: object) -> float:
    """ECMAScript ToNumber (TXT-22): bigints and symbols throw :class:`JsTypeError`."""
    if value is True or value is False:
        return 1.0 if value else 0.0
    if is_number(value):
        assert isinstance(value, int | float)
        return to_double(value)
    if value is None:
        return 0.0
    if value is UNDEFINED:
        return math.nan
    if isinstance(value, str):
        return _string_to_number(value)
    if isinstance(value, JsBigInt):
        raise JsTypeError("Cannot convert a BigInt value to a number")
    if is_symbol(value):
        raise JsTypeError("Cannot convert a Symbol value to a number")
    if isinstance(value, list):
        return _string_to_number(_array_to_string(value, set()))
    return math.nan  # a plain object ("[object Object]") or a function


def to_integer_or_infinity(number: float) -> float:
    """ECMAScript ToIntegerOrInfinity: NaN -> 0, truncation toward zero (TXT-18)."""
    if math.isnan(number):
        return 0.0
    if math.isinf(number):
        return number
    return float(math.trunc(number))


def slice_start(length: int, start: float) -> int:
    """Where ``x.slice(start)`` begins in a sequence of ``length`` items (TXT-18, TXT-19).

    ``start`` is a double: truncated toward zero, NaN counts as 0, a negative
    value counts from the end; the result is clamped into [0, length].
    """
    relative = to_integer_or_infinity(start)
    if relative < 0:
        return int(max(length + relative, 0))
    return int(min(relative, length))


def max_of(a: float, b: float) -> float:
    """``Math.max(a, b)``: NaN when either is NaN (TXT-20)."""
    return math.nan if math.isnan(a) or math.isnan(b) else max(a, b)


def min_of(a: float, b: float) -> float:
    """``Math.min(a, b)``: NaN when either is NaN; -0 below +0 (TXT-20)."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0:
        return a if math.copysign(1.0, a) < 0 else b
    return min(a, b)
