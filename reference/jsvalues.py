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

import math
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
    """A JS ``bigint`` (e.g. ``10n``); RFC 8785 has no form for it."""

    value: int


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
    """ECMAScript ``Number::toString`` of a finite number (CAN-22, CAN-23, CAN-24, MSG-03).

    Delegates to the ``jcs`` package's formatter, which matches JS on every
    finite double; integers are first taken to their double (DATA-11).
    """
    number = to_double(value)
    if not math.isfinite(number):
        raise ValueError(f"not a finite number: {number!r}")
    result: str = convert2Es6Format(number)
    return result
