"""MkDocs hook of the spec site: loads the ``doomloop_docs`` package beside it.

MkDocs imports a hook by file path, so this file puts its own folder on
``sys.path`` and re-exports the event handlers of :mod:`doomloop_docs.site`.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from doomloop_docs.site import (  # noqa: E402
    on_config,
    on_files,
    on_page_content,
    on_page_context,
    on_page_markdown,
)

__all__ = ["on_config", "on_files", "on_page_content", "on_page_context", "on_page_markdown"]
