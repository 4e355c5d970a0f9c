"""Writing an output file as a stream, all or nothing.

The text goes to a temporary file beside the target and replaces it only
when the replay finished; on an error the temporary file is removed and the
target is untouched (never a half-written file).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import TextIO


class AtomicText:
    """A text file written in pieces and published at :meth:`commit`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        directory = path.parent if str(path.parent) else Path(".")
        try:
            descriptor, name = tempfile.mkstemp(
                prefix=f".{path.name}.", suffix=".tmp", dir=directory
            )
        except OSError as error:  # name the file asked for, not the temporary one
            raise OSError(error.errno, error.strerror, str(path)) from None
        self.temp = Path(name)
        self.stream: TextIO = os.fdopen(descriptor, "w", encoding="utf-8", newline="\n")

    def write(self, text: str) -> None:
        self.stream.write(text)

    def commit(self) -> None:
        self.stream.close()
        os.replace(self.temp, self.path)

    def abort(self) -> None:
        with contextlib.suppress(OSError):
            self.stream.close()
        with contextlib.suppress(OSError):
            self.temp.unlink()
