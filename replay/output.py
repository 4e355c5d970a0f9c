"""Writing an output file as a stream, all or nothing.

The kit's one writer does it (:class:`doomloop_kit.vectorset.writing.OutputStream`):
a plain file receives the text in a temporary file beside it and is replaced
only when the replay finished (on an error the target is untouched, never
half-written); a device or FIFO (``/dev/stdout`` in a pipe) is written through.
"""

from __future__ import annotations

from doomloop_kit.vectorset.writing import OutputStream as AtomicText

__all__ = ["AtomicText"]
