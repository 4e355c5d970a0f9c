"""Every file the kit reads whole, read one way: bounded, never hanging.

The counterpart of :mod:`.writing`. Vector files, manifests, expected-failures
lists, outcomes files and option files go through :func:`read_bytes` (logs are
read record by record, :mod:`doomloop_kit.replay.jsonstream`, under the same
bound per record):

* **Bounded**: at most :data:`MAX_INPUT_BYTES` are read; a longer input (an
  endless one: ``/dev/zero``) is refused once that much was read, so memory
  stays bounded whatever the path names.
* **Never a hang**: the file is opened without waiting for a writer; a
  FIFO, a socket or a device is refused where the format needs a plain file
  (a vector file, a manifest: their digests are the manifest's), and read
  as it comes elsewhere (``--expected-failures <(...)``).
* **Named**: every refusal is an :class:`InputError` whose message starts
  with the path.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

MAX_INPUT_BYTES: Final = 256 << 20
"""The longest input file, log line or log value the kit reads: 256 MiB."""

_CHUNK: Final = 1 << 20


class InputError(ValueError):
    """An input that cannot be read: ``str()`` is ``PATH: why``."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = Path(path)
        self.problem = problem


def too_long(what: str = "the file") -> str:
    """The message of an input past :data:`MAX_INPUT_BYTES`."""
    return f"{what} is longer than {MAX_INPUT_BYTES >> 20} MiB, the most the kit reads"


def read_bytes(path: Path, *, regular: bool) -> bytes:
    """The bytes of ``path``; ``regular``: refuse anything but a regular file.

    Raises :class:`InputError` for a file that cannot be opened or read, that is
    not regular when it must be, or that holds more than :data:`MAX_INPUT_BYTES`.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as error:
        raise InputError(path, _reason(error)) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(path, "is a directory, not a file")
        if regular and not stat.S_ISREG(mode):
            raise InputError(path, "not a regular file (a FIFO, a socket or a device)")
        os.set_blocking(fd, True)  # opened without waiting for a writer; now read as it comes
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_INPUT_BYTES:
            chunk = os.read(fd, min(_CHUNK, MAX_INPUT_BYTES + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
        raise InputError(path, too_long())
    except OSError as error:
        raise InputError(path, _reason(error)) from None
    finally:
        os.close(fd)


def read_text(path: Path, *, regular: bool) -> str:
    """:func:`read_bytes` decoded as UTF-8 (bytes that are not UTF-8: their line named)."""
    data = read_bytes(path, regular=regular)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(path, f"line {line} is not UTF-8 text ({error.reason})") from None


def _reason(error: OSError) -> str:
    return f"cannot read: {error.strerror or error}"
