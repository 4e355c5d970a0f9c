"""``doomloop-kit report summary REPORT.jsonl``: a run's report in a few lines.

Reads a JSON-lines report of ``conformance run --report-json`` and prints
what a CI job page needs: the implementation and its declared features, how
the run ended and its exit status, the totals, the features whose vectors
were skipped, and the failed and errored vectors grouped by cause
(:mod:`.causes`), each with a count and its first vector. ``--format
markdown`` (the default) is for a job summary (``>> "$GITHUB_STEP_SUMMARY"``),
``--format json`` for a program. Several reports give one section each.

Exit 0 when every report was read, 2 when one cannot be read or is not a
report (a line that is not JSON, no header): the summary never invents a
result. A report whose run did not end (no footer, or the ``unfinished``
footer written when the run started) is summarised as such.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .causes import Cause, grouped
from .supervisor import positive_int

TOTALS = ("passed", "failed", "errored", "skipped", "xfailed", "xpassed", "not-run")


class NotAReport(Exception):
    """The file cannot be read as a JSON-lines report."""


@dataclass
class Summary:
    source: str
    header: dict[str, Any]
    footer: dict[str, Any] | None
    causes: list[Cause] = field(default_factory=list)

    @property
    def implementation(self) -> str:
        harness = self.header.get("harness") or {}
        impl = harness.get("implementation") or {}
        if not impl:
            return "no harness (it did not start)"
        return f"{impl.get('name')} {impl.get('version')} ({impl.get('language')})"

    @property
    def status(self) -> str:
        if self.footer is None:
            return "no footer: the report was cut short"
        status = str(self.footer.get("status"))
        reason = self.footer.get("reason")
        return f"{status}: {reason}" if reason else status

    def to_json(self) -> dict[str, Any]:
        footer = self.footer or {}
        harness = self.header.get("harness") or {}
        return {
            "report": self.source,
            "implementation": harness.get("implementation"),
            "features": harness.get("features"),
            "vectorSet": self.header.get("vectorSet"),
            "status": footer.get("status"),
            "reason": footer.get("reason"),
            "exitStatus": footer.get("exitStatus"),
            "totals": footer.get("totals"),
            "missingFeatures": footer.get("missingFeatures"),
            "causes": [cause.to_json() for cause in self.causes],
        }


def read(path: Path) -> Summary:
    """The summary of one report; raises :class:`NotAReport`."""
    header: dict[str, Any] | None = None
    footer: dict[str, Any] | None = None
    vectors: list[Mapping[str, Any]] = []
    try:
        with path.open(encoding="utf-8") as stream:
            for number, text in enumerate(stream, start=1):
                if not text.strip():
                    continue
                try:
                    line = json.loads(text)
                except ValueError:
                    raise NotAReport(f"{path}:{number}: not JSON") from None
                kind = line.get("type") if isinstance(line, dict) else None
                if kind == "header":
                    header = line
                elif kind == "vector":
                    vectors.append(line)
                elif kind == "footer":
                    footer = line
    except (OSError, UnicodeDecodeError) as error:
        raise NotAReport(f"{path}: {error}") from None
    if header is None:
        raise NotAReport(f"{path}: no header line: not a report of `conformance run --report-json`")
    return Summary(path.name, header, footer, grouped(vectors))


def markdown(summary: Summary, shown_causes: int) -> str:
    footer = summary.footer or {}
    totals = footer.get("totals") or {}
    harness = summary.header.get("harness") or {}
    vector_set = summary.header.get("vectorSet") or {}
    lines = [
        f"### Conformance: {summary.implementation}",
        "",
        f"- **Run**: {summary.status}; exit status {footer.get('exitStatus', 'unknown')}",
        f"- **Report**: `{summary.source}`",
    ]
    if vector_set.get("sha256"):
        lines.append(f"- **Vector set**: manifest sha256 `{str(vector_set['sha256'])[:16]}…`")
    if harness.get("features") is not None:
        declared = ", ".join(f"`{name}`" for name in harness["features"]) or "none"
        lines.append(f"- **Declared features**: {declared}")
    lines += [
        "",
        "| " + " | ".join(TOTALS) + " |",
        "| " + " | ".join("---:" for _ in TOTALS) + " |",
        "| " + " | ".join(str(totals.get(name, "-")) for name in TOTALS) + " |",
    ]
    missing = footer.get("missingFeatures") or {}
    if missing:
        skipped = ", ".join(f"`{name}` ({count})" for name, count in missing.items())
        lines += ["", f"Skipped for features the harness does not declare: {skipped}"]
    if summary.causes:
        lines += [
            "",
            f"**Failed or errored vectors by cause** ({len(summary.causes)}):",
            "",
            "| vectors | cause | first vector |",
            "| ---: | --- | --- |",
        ]
        for cause in summary.causes[:shown_causes]:
            lines.append(f"| {cause.count} | {_cell(cause.text)} | `{_cell(cause.first)}` |")
        if len(summary.causes) > shown_causes:
            lines.append(
                f"| | … {len(summary.causes) - shown_causes} more causes (`--causes N`) | |"
            )
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """Text for a table cell: no pipe, backtick or line break breaks the table."""
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "reports", nargs="+", type=Path, metavar="REPORT", help="--report-json file"
    )
    parser.add_argument(
        "--format",
        choices=("markdown", "json"),
        default="markdown",
        help="markdown (default; for a CI job summary) or JSON",
    )
    parser.add_argument(
        "--causes",
        type=positive_int,
        default=20,
        metavar="N",
        help="causes listed in markdown (default 20; JSON lists all)",
    )
    parser.epilog = (
        "example (GitHub Actions):\n"
        '  doomloop-kit report summary reports/conformance.jsonl >> "$GITHUB_STEP_SUMMARY"'
    )


def run(args: argparse.Namespace) -> int:
    summaries = []
    for path in args.reports:
        try:
            summaries.append(read(path))
        except NotAReport as error:
            print(f"doomloop-kit report summary: {error}", file=sys.stderr)
            return 2
    if args.format == "json":
        data = [summary.to_json() for summary in summaries]
        print(json.dumps(data[0] if len(data) == 1 else data, indent=1, ensure_ascii=False))
    else:
        print("\n".join(markdown(summary, args.causes) for summary in summaries), end="")
    return 0
