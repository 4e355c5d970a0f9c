"""Text from outside the kit, made safe for a terminal.

Logs, vector files and harnesses hold any characters; printed raw, an escape
sequence retitles or clears the terminal, a carriage return or a line feed
forges a line of the kit's own (a ``PASSED`` line, a summary), a lone
surrogate cannot even be encoded. Every command escapes such characters
before they reach stdout or stderr, visibly and reversibly:

* :func:`shown` escapes a piece of outside text for a place inside one line:
  every control character (C0, DEL, C1: ``\\x1b``, ``\\r``, ``\\n``, ``\\t``),
  the characters that reorder what follows them (bidirectional overrides and
  isolates, U+202A..U+202E, U+2066..U+2069), the line and paragraph
  separators, and lone surrogates (``\\udc80``);
* :func:`lines` does the same to a message of the kit's own that spans lines:
  its line feeds stay;
* :class:`TerminalText` is a text stream that applies :func:`shown` to every
  write but a line feed alone (what ``print`` ends a line with), and
  :func:`say` one line on stderr.

The reports (JSON lines, JUnit XML, pages) keep the text as it is: they
escape it in their own formats.
"""

from __future__ import annotations

import io
import re
import sys
from typing import Final, TextIO

_UNSAFE: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_UNSAFE_BUT_LINE_FEEDS: Final = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def shown(text: str) -> str:
    """``text`` with every character unsafe on a terminal escaped (module docstring)."""
    return _UNSAFE.sub(_escape, text)


def lines(text: str) -> str:
    """:func:`shown`, but the line feeds of a message spanning lines stay."""
    return _UNSAFE_BUT_LINE_FEEDS.sub(_escape, text)


class TerminalText(io.TextIOBase):
    """A text stream writing to ``stream`` with outside text escaped: each write is
    :func:`shown`, except a lone line feed, which ends a line (``print``'s ``end``)."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(text if text == "\n" else shown(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", None) or "utf-8"


def say(message: str, stream: TextIO | None = None) -> None:
    """One line (``message`` escaped whole) on ``stream``, stderr by default."""
    print(shown(message), file=stream if stream is not None else sys.stderr, flush=True)
