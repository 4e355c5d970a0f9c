"""The one progress bar of the kit's long commands: done/total, rate and time left.

``conformance run``, ``conformance fuzz``, ``conformance sdk-replay``,
``vectors regenerate`` and the fleet ``replay`` all show their progress
through :class:`Progress`, a thin layer over ``tqdm`` (which keeps the
estimate of the time left, the rate and the terminal's width). The bar is
drawn only on a terminal (``auto``) or when asked for (``bar``); anywhere
else (a CI log, a pipe) it draws nothing, so a log never fills with
carriage returns. Lines printed while a bar is shown go through
:meth:`Progress.above`, which takes the bar away and draws it again below
them. The bar reads the clock for its display only: nothing a command
writes or returns depends on it.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import Any, Protocol, TextIO

from tqdm import tqdm

MODES = ("auto", "bar", "lines")
"""``--progress`` values: a bar on a terminal (``auto``), always (``bar``), never (``lines``)."""

_FORMAT = (
    "{desc}{percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} {unit} [{elapsed}<{remaining}]{postfix}"
)


def add_progress_argument(parser: argparse.ArgumentParser) -> None:
    """``--progress auto|bar|lines``, the option of every command with a bar on stderr."""
    parser.add_argument(
        "--progress",
        choices=MODES,
        default="auto",
        help="a progress bar with the time left on stderr (auto: when stderr is a terminal), "
        "or none (lines)",
    )


class Stream(Protocol):
    def write(self, text: str, /) -> object: ...

    def flush(self) -> object: ...


def draws_bar(mode: str, stream: TextIO | Stream) -> bool:
    """Whether a bar is drawn on ``stream`` in ``mode`` (:data:`MODES`)."""
    if mode == "bar":
        return True
    if mode != "auto":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


class Progress:
    """A bar of ``total`` units of work, drawn on ``stream`` when :func:`shown`."""

    def __init__(
        self,
        total: int,
        *,
        what: str,
        unit: str,
        mode: str = "auto",
        stream: TextIO | Stream | None = None,
        shown_on: TextIO | None = None,
    ) -> None:
        """``stream`` receives the bar (default stderr); ``shown_on`` is the stream whose
        being a terminal decides ``auto`` (default ``stream``): a writer that wraps the
        real stream passes the real one here."""
        stream = sys.stderr if stream is None else stream
        self.on = draws_bar(mode, shown_on if shown_on is not None else stream)
        self._bar: Any = None  # a tqdm (tqdm ships no type information)
        if self.on:
            tqdm.monitor_interval = 0  # no monitor thread: signals stay with the main thread
            self._bar = tqdm(
                total=total,
                desc=f"{what}: " if what else "",
                unit=unit,
                file=stream,
                bar_format=_FORMAT,
                dynamic_ncols=True,
                leave=False,
                mininterval=0.1,
                smoothing=0.1,
            )

    def advance(self, done: int = 1, status: str | None = None) -> None:
        """``done`` more units; ``status`` (the counts so far) is shown after the bar."""
        if self._bar is None:
            return
        if status is not None:
            self._bar.set_postfix_str(status, refresh=False)
        self._bar.update(done)

    @contextlib.contextmanager
    def above(self) -> Iterator[None]:
        """Print lines meanwhile: the bar is cleared first and drawn again after."""
        if self._bar is None:
            yield
            return
        self._bar.clear()
        try:
            yield
        finally:
            self._bar.refresh()

    def close(self) -> None:
        """Take the bar away (the command's own summary follows)."""
        if self._bar is not None:
            bar, self._bar = self._bar, None
            bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
