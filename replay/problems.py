"""Problems and warnings on stderr, each with its file and line, the first few in full.

A corpus can hold thousands of the same problem (a record type a reader does
not know, labels that name no run): the first :data:`SHOWN` are printed as
they come, the rest counted in one closing line; the JSON report lists them
all.
"""

from __future__ import annotations

from typing import Final, TextIO

from doomloop_kit.conformance.terminal import say

SHOWN: Final = 20


class ProblemLines:
    """Prints ``doomloop-kit replay: WHERE: MESSAGE`` lines, the first :data:`SHOWN`."""

    def __init__(self, stream: TextIO, what: str = "problems", shown: int = SHOWN) -> None:
        self.stream, self.what, self.shown = stream, what, shown
        self.count = 0

    def add(self, where: str, message: str) -> None:
        self.count += 1
        if self.count <= self.shown:
            say(f"doomloop-kit replay: {where}: {message}", self.stream)

    def close(self) -> None:
        """The closing line, when some were not printed."""
        if self.count > self.shown:
            print(
                f"doomloop-kit replay: ... and {self.count - self.shown} more {self.what} "
                f"({self.count} in all; --json lists every one)",
                file=self.stream,
            )
