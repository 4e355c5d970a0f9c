"""The normative text: which spec files become pages, and its statement ids.

A statement is written in spec/*.md as ``<a id="MON-07"></a>**MON-07** text``
at the start of a line (a paragraph or a list item). This module finds them
(with the section each sits in), turns each one into a permalink on the page,
and writes the generated "Index of statement ids" page.

A withdrawn statement keeps its id and its place; its text opens with an
emphasised *Withdrawn* (``**ENG-07** *Withdrawn in 2.0.0; replaced by …*``).
Its permalink is marked ``data-status="withdrawn"``, and the index says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .util import md_cell

STATEMENT = re.compile(r'<a id="(?P<id>[A-Z][A-Z0-9]*-[0-9]{2,3})"></a>\*\*(?P=id)\*\*')
HEADING = re.compile(r"^(#{1,6})\s+(?P<title>.*?)\s*(?:\{#(?P<anchor>[^}\s]+)\})?\s*$")
WITHDRAWN = re.compile(r"\s*[*_]{1,2}\(?Withdrawn\b")
"""What follows the id of a withdrawn statement (checked right after the id)."""
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_TAGS = re.compile(r"<[^>]+>")


@dataclass
class Statement:
    id: str
    src_uri: str
    """The page the statement lives on, e.g. ``spec/09-monitor.md``."""
    section_title: str
    section_anchor: str | None
    text: str
    """The statement's text as plain-ish Markdown (links reduced to their text)."""
    withdrawn: bool = False

    @property
    def prefix(self) -> str:
        return self.id.rsplit("-", 1)[0]

    def summary(self, limit: int = 150) -> str:
        text = self.text
        if len(text) <= limit:
            return text
        text = text[: limit - 1].rstrip()
        if text.count("`") % 2:
            text += "`"
        return text + "…"


@dataclass
class SpecIndex:
    pages: list[str] = field(default_factory=list)
    """Spec pages, as src_uris under ``spec/``, in reading order."""
    titles: dict[str, str] = field(default_factory=dict)
    statements: dict[str, Statement] = field(default_factory=dict)
    duplicates: list[str] = field(default_factory=list)
    anchors: dict[str, set[str]] = field(default_factory=dict)
    """Explicit heading anchors and statement ids of each spec page."""


def page_order(name: str) -> tuple[int, str]:
    """README first, then the numbered sections, then the other documents."""
    if name == "README.md":
        return (0, name)
    if re.match(r"^\d", name):
        return (1, name)
    return (2, name)


def spec_files(spec_dir: Path) -> list[Path]:
    return sorted(spec_dir.glob("*.md"), key=lambda p: page_order(p.name))


def _plain(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _TAGS.sub("", text)
    text = text.replace("*", "")
    return re.sub(r"\s+", " ", text).strip()


def statement_text(lines: list[str], start: int, column: int) -> str:
    """The text of the statement opening on ``lines[start]`` at ``column``."""
    first = lines[start][column:]
    first = STATEMENT.sub("", first, count=1)
    parts = [first]
    for line in lines[start + 1 :]:
        stripped = line.strip()
        if (
            not stripped
            or STATEMENT.search(line)
            or re.match(r"^\s*([-*+]|\d+\.)\s", line)
            or stripped.startswith(("|", "#", "```", "~~~"))
        ):
            break
        parts.append(stripped)
    return _plain(" ".join(parts))


def parse(spec_dir: Path) -> SpecIndex:
    index = SpecIndex()
    for path in spec_files(spec_dir):
        src_uri = f"spec/{path.name}"
        index.pages.append(src_uri)
        lines = path.read_text(encoding="utf-8").splitlines()
        anchors: set[str] = set()
        section_title, section_anchor = "", None
        in_fence = False
        for number, line in enumerate(lines):
            if _FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            heading = HEADING.match(line)
            if heading:
                title = _plain(heading.group("title"))
                if heading.group("anchor"):
                    anchors.add(heading.group("anchor"))
                section_title, section_anchor = title, heading.group("anchor")
                if len(heading.group(1)) == 1 and src_uri not in index.titles:
                    index.titles[src_uri] = title
                continue
            for match in STATEMENT.finditer(line):
                sid = match.group("id")
                anchors.add(sid)
                if sid in index.statements:
                    index.duplicates.append(f"{sid} ({index.statements[sid].src_uri}, {src_uri})")
                    continue
                index.statements[sid] = Statement(
                    id=sid,
                    src_uri=src_uri,
                    section_title=section_title,
                    section_anchor=section_anchor,
                    text=statement_text(lines, number, match.start()),
                    withdrawn=is_withdrawn(line, match.end()),
                )
        index.anchors[src_uri] = anchors
        index.titles.setdefault(src_uri, path.stem)
    return index


def is_withdrawn(text: str, end: int) -> bool:
    """Whether the statement whose id marker ends at ``end`` of ``text`` is withdrawn."""
    return WITHDRAWN.match(text, end) is not None


def add_permalinks(markdown: str) -> str:
    """Make each statement's id a link to itself (its permalink); mark the withdrawn ones."""

    def link(m: re.Match[str]) -> str:
        sid = m["id"]
        status, note = (
            (' data-status="withdrawn"', " (withdrawn)")
            if is_withdrawn(markdown, m.end())
            else ("", "")
        )
        return (
            f'<a id="{sid}" class="dl-stmt" href="#{sid}"{status} '
            f'title="Permanent link to {sid}{note}">**{sid}**</a>'
        )

    return STATEMENT.sub(link, markdown)


def _id_key(sid: str) -> tuple[str, int]:
    prefix, number = sid.rsplit("-", 1)
    return (prefix, int(number))


def index_page(index: SpecIndex, citations: dict[str, list[str]]) -> str:
    """The "Index of statement ids" page (Markdown; links relative to the site root).

    ``citations`` maps a statement id to the vector ids citing it.
    """
    # Prefixes in order of first appearance in the spec (pages in reading order).
    prefixes: dict[str, list[Statement]] = {}
    for statement in index.statements.values():
        prefixes.setdefault(statement.prefix, []).append(statement)
    groups = list(prefixes.items())
    total = len(index.statements)
    out = [
        "---",
        "search:",
        "  boost: 0.5",
        "---",
        "",
        "# Index of statement ids {#statement-ids}",
        "",
        f"Every statement id of the specification ({total} in all), generated from "
        "`spec/*.md` when the site is built. An id links to the statement; the section "
        "links to the part of the specification around it; *vectors* counts the test "
        "vectors that cite the id (see the [vector catalog](vectors/index.md)).",
        "",
        "Prefixes: " + ", ".join(f"[{p}](#prefix-{p.lower()})" for p, _ in groups) + ".",
        "",
    ]
    for prefix, statements in groups:
        statements.sort(key=lambda s: _id_key(s.id))
        page = statements[0].src_uri
        out += [
            f"## {prefix} {{#prefix-{prefix.lower()}}}",
            "",
            f"In [{md_cell(index.titles.get(page, page))}]({page}).",
            "",
            "| Id | Section | Statement | Vectors |",
            "| --- | --- | --- | ---: |",
        ]
        for s in statements:
            section = md_cell(s.section_title)
            if s.section_anchor:
                section = f"[{section}]({s.src_uri}#{s.section_anchor})"
            count = len(citations.get(s.id, []))
            mark = " *(withdrawn)*" if s.withdrawn else ""
            out.append(
                f"| [{s.id}]({s.src_uri}#{s.id}){mark} | {section} | {md_cell(s.summary())} "
                f"| {count} |"
            )
        out.append("")
    return "\n".join(out) + "\n"
