"""Reading a log file as a stream of JSON values, each with the line it starts on.

A log is either JSON lines (one value per line; blank lines skipped) or one
JSON document: an array of values, or an object whose ``messages``, ``input``,
``output``, ``trajectory`` or ``history`` member is that array (an OpenAI
request or response body, a mini-swe-agent or SWE-agent trajectory); a
SWE-agent ``history`` after its ``trajectory`` is read on, as a second array.
A JSON-lines log whose last line is cut short (a session still being written,
or one that ended abruptly) ends with :class:`CutLine` after its other values.
Both are read incrementally, so memory holds one value at a time, never the
whole log, and in time linear in the log's size: a value cut by the reading
window is read on with a window twice as large. The JSON is read as JS
``JSON.parse`` reads it (:func:`doomloop_kit.jsvalue.jsjson.loads`): ``NaN``
and ``Infinity`` are not JSON, an integer of any length is a number (one too
long for a double is Infinity). Hostile input is bounded (PROT-45): a line,
or a value of a document, longer than :data:`~doomloop_kit.vectorset.reading.MAX_INPUT_BYTES`
characters, or nested deeper than :data:`~doomloop_kit.jsvalue.jsjson.MAX_DEPTH`
levels, is an error naming its line. The text is UTF-8; a byte-order mark at
its start is skipped, and bytes that are not UTF-8 are an error naming their
line. A line ends at a line feed only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final

from doomloop_kit.jsvalue import jsjson
from doomloop_kit.vectorset.reading import MAX_INPUT_BYTES

WRAPPER_MEMBERS: Final = ("messages", "input", "output", "trajectory", "history")
"""Members of a top-level object whose array value is the log (``trajectory``, ``history``:
SWE-agent)."""
FOLLOWING: Final = {"trajectory": "history"}
"""A member read on after the log's own: SWE-agent's history names the trajectory's calls."""

_CHUNK: Final = 1 << 16
_SPACE: Final = re.compile(r"[ \t\r\n]*")
_TAIL: Final = 8  # an error this close to the end of the window may be a cut value
_LIMIT_TEXT: Final = f"{MAX_INPUT_BYTES >> 20} MiB, the most the kit reads"
OUT_OF_MEMORY: Final = "out of memory reading this record (MemoryError)"


class LogError(ValueError):
    """The log cannot be replayed; the message names the file and line."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path, self.line, self.detail = path, line, message


class CutLine(LogError):
    """The last line of a JSON-lines log is not JSON and nothing follows it: the log was
    cut short there. Raised after every value before it was read."""


@dataclass
class Document:
    """What a JSON-document log says around its records, filled in as it is read.

    ``member`` is the wrapper member whose array is the log (None for a bare
    array or JSON lines); ``context`` holds the members read before it (a
    mini-swe-agent trajectory's ``info``, for instance): readers use them to
    recognise a format.
    """

    member: str | None = None
    context: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Located:
    """One JSON value of the log and the 1-based line where it starts."""

    line: int
    value: object


_DECODER: Final = jsjson.DECODER


def loads(text: str) -> object:
    """Parse JSON text as JS ``JSON.parse`` would accept it, within the kit's bounds."""
    return jsjson.loads(text)


class _Buffer:
    """A sliding window over a text stream that counts the lines it consumed."""

    def __init__(self, stream: IO[str], path: str) -> None:
        self.stream, self.path = stream, path
        self.text = ""
        self.pos = 0
        self.line = 1  # line number at self.pos
        self.eof = False

    def fill(self, more: int = _CHUNK) -> bool:
        """Read at least ``more`` characters further (as many as the stream has); False at
        end of file."""
        if self.eof:
            return False
        chunk = self.stream.read(max(more, _CHUNK))
        if not chunk:
            self.eof = True
            return False
        self.text = self.text[self.pos :] + chunk
        self.pos = 0
        return True

    def advance(self, end: int) -> None:
        self.line += self.text.count("\n", self.pos, end)
        self.pos = end

    def skip_space(self) -> str:
        """The next non-blank character ('' at end of file), not consumed."""
        while True:
            match = _SPACE.match(self.text, self.pos)
            self.advance(match.end() if match else self.pos)
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.fill():
                return ""

    def expect(self, allowed: str, what: str) -> str:
        char = self.skip_space()
        if char == "" or char not in allowed:
            found = "the end of the file" if char == "" else repr(char)
            raise LogError(self.path, self.line, f"expected {what}, found {found}")
        self.advance(self.pos + 1)
        return char

    def value(self) -> object:
        """Decode the JSON value at the cursor, reading more text as needed: a cut value
        is read on with as much text again, so a value costs time linear in its size."""
        self.skip_space()
        while True:
            held = len(self.text) - self.pos
            try:
                try:
                    value, end = _DECODER.raw_decode(self.text, self.pos)
                except RecursionError:  # CPython 3.12+ caps its parser: read without recursion
                    value, end = jsjson.raw_decode_flat(self.text, self.pos)
            except MemoryError:
                raise LogError(self.path, self.line, OUT_OF_MEMORY) from None
            except json.JSONDecodeError as error:
                # Near the end of the window the text may just be cut: read on.
                cut = error.pos >= len(self.text) - _TAIL or error.msg.startswith("Unterminated")
                if cut and held > MAX_INPUT_BYTES:
                    message = f"a value longer than {_LIMIT_TEXT}"
                    raise LogError(self.path, self.line, message) from None
                if cut and self.fill(held):
                    continue
                line = self.line + self.text.count("\n", self.pos, error.pos)
                raise LogError(self.path, line, jsjson.problem(error)) from None
            except ValueError as error:  # NaN / Infinity
                raise LogError(self.path, self.line, jsjson.problem(error)) from None
            if end == len(self.text) and not self.eof and self.text[self.pos] not in '[{"':
                self.fill()  # a number may continue in the next chunk
                continue
            try:
                jsjson.check_depth(self.text, self.pos, end)
            except jsjson.NestingError as error:
                raise LogError(self.path, self.line, str(error)) from None
            self.advance(end)
            return value


def _lines(stream: IO[str], path: str, number: int) -> Iterator[tuple[int, str]]:
    """The lines after line ``number`` (each with its number), none longer than the bound."""
    while True:
        raw = stream.readline(MAX_INPUT_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_INPUT_BYTES and not raw.endswith("\n"):
            raise LogError(path, number, f"a line longer than {_LIMIT_TEXT}")
        yield number, raw


def _json_lines(stream: IO[str], path: str, first: str, start: int) -> Iterator[Located]:
    """JSON lines: ``first`` (line ``start``, already read) and the rest of the stream."""
    yield _line_value(first, path, start)
    lines = _lines(stream, path, start)
    for number, raw in lines:
        if not raw.strip():
            continue
        try:
            value = _line_value(raw, path, number)
        except LogError as error:
            if error.detail.startswith("not JSON") and not any(rest.strip() for _, rest in lines):
                raise CutLine(
                    path, number, f"the last line is cut short ({error.detail})"
                ) from None
            raise
        yield value


def _line_value(raw: str, path: str, number: int) -> Located:
    try:
        return Located(number, loads(raw))
    except ValueError as error:
        raise LogError(path, number, jsjson.problem(error)) from None
    except MemoryError:
        raise LogError(path, number, OUT_OF_MEMORY) from None


def _array(buffer: _Buffer) -> Iterator[Located]:
    """The elements of the array whose ``[`` was just consumed."""
    if buffer.skip_space() == "]":
        buffer.advance(buffer.pos + 1)
        return
    while True:
        buffer.skip_space()
        line = buffer.line
        yield Located(line, buffer.value())
        if buffer.expect(",]", "',' or ']' after an element") == "]":
            return


def _document(buffer: _Buffer, document: Document) -> Iterator[Located]:
    buffer.skip_space()
    start = buffer.line
    opening = buffer.expect("[{", "a JSON array or object")
    if opening == "[":
        yield from _array(buffer)
    else:
        found = False
        while buffer.skip_space() != "}":
            line = buffer.line
            key = buffer.value()
            if not isinstance(key, str):
                raise LogError(buffer.path, line, "expected a member name")
            buffer.expect(":", "':' after a member name")
            if (
                key in WRAPPER_MEMBERS
                and buffer.skip_space() == "["
                and (not found or key == FOLLOWING.get(document.member or ""))
            ):
                buffer.advance(buffer.pos + 1)
                found = True
                document.member = key
                yield from _array(buffer)
            elif found:
                buffer.value()  # a member after the log: read and dropped
            else:
                document.context[key] = buffer.value()
            if buffer.expect(",}", "',' or '}' after a member") == "}":
                break
        else:
            buffer.advance(buffer.pos + 1)
        if not found:
            members = ", ".join(WRAPPER_MEMBERS)
            raise LogError(
                buffer.path, start, f"a JSON object log needs an array member ({members})"
            )
    if buffer.skip_space() != "":
        raise LogError(buffer.path, buffer.line, "text after the end of the JSON document")


def read_values(path: Path, document: Document | None = None) -> Iterator[Located]:
    """Every JSON value of the log at ``path``, in order, with its line.

    ``document``, when given, is filled with the wrapper member and the
    members before it as they are read.
    """
    name = str(path)
    try:
        stream = path.open(encoding="utf-8-sig", newline="\n")
    except OSError as error:
        raise LogError(name, 0, f"cannot open the log: {error.strerror}") from None
    jsjson.deep_enough()
    with stream:
        try:
            yield from _values(stream, name, document if document is not None else Document())
        except UnicodeDecodeError as error:
            line = _first_undecodable_line(path)
            raise LogError(name, line, f"the log is not UTF-8 text: {error.reason}") from None


def _first_undecodable_line(path: Path) -> int:
    """The 1-based line holding the first bytes that are not UTF-8 (a line feed is
    never part of a multi-byte character, so each line decodes on its own)."""
    with path.open("rb") as raw:
        number = 0
        while line := raw.readline(MAX_INPUT_BYTES + 1):
            number += 1
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                return number
    return 0


def _values(stream: IO[str], path: str, document: Document) -> Iterator[Located]:
    for number, raw in _lines(stream, path, 0):
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped[0] == "[" or (stripped[0] == "{" and _document_start(stripped)):
            buffer = _Buffer(stream, path)
            buffer.text, buffer.line = raw, number
            yield from _document(buffer, document)
            return
        yield from _json_lines(stream, path, raw, number)
        return


def _document_start(line: str) -> bool:
    """A first line opening a JSON document rather than holding one log record.

    That is an object spread over several lines, or one line wrapping the log
    in a ``messages``/``input``/``output`` array (and not itself a message or
    an item, which have ``role``, ``type`` or ``kind``).
    """
    try:
        value = loads(line)
    except ValueError:
        return True
    return (
        isinstance(value, dict)
        and not any(name in value for name in ("role", "type", "kind"))
        and any(isinstance(value.get(name), list) for name in WRAPPER_MEMBERS)
    )
