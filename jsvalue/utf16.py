"""Strings as JavaScript sees them: sequences of UTF-16 code units (DATA-02..DATA-08).

Python strings are sequences of code points. A JS string may hold a lone
surrogate, which Python represents as a code point in U+D800..U+DFFF. Two
surrogate code points that form a valid pair are the same JS string as the
astral character they encode, so every function here first brings a string
to its *normal form*: valid pairs joined, lone surrogates kept.
"""

from __future__ import annotations

import re
from typing import Final

# The ECMAScript WhiteSpace and LineTerminator sets, i.e. what JS `\s` and
# String.prototype.trim match (TXT-04). Python's str.split() and Go's
# unicode.IsSpace use different sets; never use them for text detection.
JS_WHITESPACE: Final = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_WS_CLASS: Final = "[" + re.escape(JS_WHITESPACE) + "]"
JS_WHITESPACE_RUN: Final = re.compile(_WS_CLASS + "+")
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def normalize(text: str) -> str:
    """Join surrogate code points that form valid pairs; keep lone ones."""
    if not _LONE_SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def sort_key(text: str) -> bytes:
    """A key that orders strings by UTF-16 code units, as JS comparison does."""
    return normalize(text).encode("utf-16-be", "surrogatepass")


def has_lone_surrogate(text: str) -> bool:
    """True when the (normalised) string holds an unpaired surrogate."""
    return _LONE_SURROGATE.search(normalize(text)) is not None


def escape_lone_surrogates(json_text: str) -> str:
    """JSON text with every surrogate code point written as a lowercase ``\\udxxx`` escape,
    the way JS ``JSON.stringify`` writes a lone surrogate (PROT-04): UTF-8 cannot hold it.
    Surrogates stand only inside JSON strings, where the escape is the same code unit."""
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", json_text)


def utf8_bytes(text: str) -> bytes:
    """UTF-8 bytes as JS ``TextEncoder`` makes them: a lone surrogate → U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", normalize(text)).encode("utf-8")


def tail_code_units(text: str, budget: int) -> str:
    """The last ``budget`` UTF-16 code units of ``text`` (TXT-18).

    A cut through a surrogate pair keeps the trailing half as a lone
    surrogate. Only the last ``budget`` code points (at least ``budget`` code
    units) are encoded, so the cost is O(budget), not O(len(text)).
    """
    if budget <= 0:
        return ""
    units = text[-budget:].encode("utf-16-le", "surrogatepass")
    return units[max(0, len(units) - 2 * budget) :].decode("utf-16-le", "surrogatepass")


def code_unit_length(text: str) -> int:
    """Length in UTF-16 code units (JS ``String.prototype.length``)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2
