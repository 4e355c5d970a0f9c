"""Small helpers shared by the page generators."""

from __future__ import annotations

import html
import json
import posixpath
import re
from typing import Any

STATEMENT_ID = re.compile(r"\b([A-Z][A-Z0-9]*-[0-9]{2,3})\b")
"""A statement id as the spec writes it (``MON-07``, ``STATE-23``)."""


def esc(text: str) -> str:
    """HTML-escape text (quotes included, so it is safe in attributes)."""
    return html.escape(text, quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]])")


def md_text(text: str) -> str:
    """Plain text as Markdown that shows it verbatim (no emphasis, links, code or HTML)."""
    escaped = _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))
    return escaped.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def md_cell(text: str) -> str:
    """Make Markdown text safe inside one cell of a Markdown table (pipes escaped)."""
    return re.sub(r"(?<!\\)\|", r"\\|", text).replace("\n", " ")


def short_json(value: Any) -> str:
    """Compact JSON, non-ASCII kept readable; lone surrogates shown as escapes."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    # A lone surrogate cannot be written as UTF-8: show it the way JSON writes it.
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)


def relative_url(target: str, source_page_url: str) -> str:
    """The link from the page at ``source_page_url`` to the site URL ``target``.

    Both are site-relative URLs as MkDocs gives them (``spec/09-monitor/``,
    ``vectors/curated/fanout/``); the result works from the page's directory.
    """
    target_path, _, fragment = target.partition("#")
    base = source_page_url if source_page_url.endswith("/") else posixpath.dirname(source_page_url)
    rel = posixpath.relpath(target_path or ".", base or ".")
    if target_path.endswith("/") and not rel.endswith("/"):
        rel += "/"
    if rel == "./":
        rel = "./"
    return rel + (f"#{fragment}" if fragment else "")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
