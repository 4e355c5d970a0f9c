"""What a conformance run shows and writes: console, JSON lines, JUnit XML.

The JSON-lines report is written as the run goes, one flushed line at a
time: a ``header`` line, one ``vector`` line per selected vector, and a
``footer`` line with the totals. A report without a footer is truncated
(the runner died or was killed before the end).
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from doomloop_kit.vectorset import files as vformat

from .execute import ERRORED, FAILED, NOT_RUN, PASSED, SKIPPED, XFAILED, XPASSED, Outcome

if TYPE_CHECKING:
    from .runner import Tally

CONSOLE_TRANSCRIPT_LINES = 30
CONSOLE_LINE_CHARS = 300


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    vector = outcome.vector
    line: dict[str, Any] = {
        "type": "vector",
        "id": vector.id,
        "file": outcome.file,
        "status": outcome.status,
        "description": vector.description,
    }
    if outcome.missing_features:
        line["missingFeatures"] = outcome.missing_features
    if outcome.failure is not None:
        line["failure"] = outcome.failure
    if outcome.error is not None:
        line["error"] = outcome.error
    if outcome.expected_reason is not None:
        line["expectedFailure"] = outcome.expected_reason
    if outcome.transcript:
        line["transcript"] = outcome.transcript
    return line


class JsonLines:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.stream: TextIO | None = path.open("w", encoding="utf-8")

    def _write(self, line: dict[str, Any]) -> None:
        if self.stream is not None:
            self.stream.write(json.dumps(line, ensure_ascii=True, allow_nan=True) + "\n")
            self.stream.flush()

    def header(self, line: dict[str, Any]) -> None:
        self._write(line)

    def vector(self, outcome: Outcome) -> None:
        self._write(outcome_json(outcome))

    def footer(self, line: dict[str, Any]) -> None:
        self._write(line)

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None


class Console:
    """Progress and results on stdout: a bar on a terminal, plain lines otherwise."""

    def __init__(self, stream: TextIO, progress: str, verbose: bool) -> None:
        self.stream = stream
        self.bar = progress == "bar" or (progress == "auto" and stream.isatty())
        self.verbose = verbose
        self.total = 0
        self.done = 0
        self.file: str | None = None
        self.file_counts: Counter[str] = Counter()
        self._bar_shown = False

    def _print(self, text: str = "") -> None:
        self._clear_bar()
        self.stream.write(text + "\n")
        self.stream.flush()

    def _clear_bar(self) -> None:
        if self._bar_shown:
            self.stream.write("\r\x1b[K")
            self._bar_shown = False

    def note(self, text: str) -> None:
        self._print(text)

    def begin(self, total: int) -> None:
        self.total = total

    def vector(self, outcome: Outcome, counts: Counter[str]) -> None:
        self.done += 1
        if not self.bar and outcome.file != self.file:
            self._file_done()
            self.file = outcome.file
        self.file_counts[outcome.status] += 1
        status = outcome.status
        if status in (FAILED, ERRORED, XPASSED):
            self._details(outcome)
        elif self.verbose or (status == XFAILED and not self.bar):
            detail = outcome.summary()
            self._print(f"{status.upper()} {outcome.id}" + (f" -- {detail}" if detail else ""))
        if self.bar:
            self._draw(counts)

    def _file_done(self) -> None:
        if self.file is not None and not self.bar:
            parts = ", ".join(f"{n} {s}" for s, n in sorted(self.file_counts.items()))
            self._print(f"{self.file}: {parts}")
        self.file_counts = Counter()

    def _draw(self, counts: Counter[str]) -> None:
        width = max(10, min(40, shutil.get_terminal_size((80, 20)).columns - 50))
        filled = width * self.done // max(1, self.total)
        bad = counts[FAILED] + counts[ERRORED] + counts[XPASSED]
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}  "
            f"{counts[PASSED]} passed, {bad} failed, {counts[SKIPPED]} skipped\x1b[K"
        )
        self.stream.flush()
        self._bar_shown = True

    def end(self) -> None:
        self._file_done()
        self.file = None
        self._clear_bar()
        self.stream.flush()

    def _details(self, outcome: Outcome) -> None:
        vector = outcome.vector
        label = {FAILED: "FAILED", ERRORED: "ERRORED", XPASSED: "XPASSED"}[outcome.status]
        self._print(f"{label} {vector.id} ({outcome.file}): {vector.description}")
        if outcome.status == XPASSED:
            self._print("  listed as an expected failure, but passed")
            return
        self._print(f"  {outcome.summary(values=False)}")
        if outcome.failure is not None:
            failure = outcome.failure
            self._print(
                f"    expected: {_clip(_dump(failure['expected'], failure.get('expectedAbsent')))}"
            )
            self._print(
                f"    actual:   {_clip(_dump(failure['actual'], failure.get('actualAbsent')))}"
            )
        if outcome.error is not None and outcome.error.get("stderr"):
            self._print("  harness stderr (last lines):")
            for line in outcome.error["stderr"][-10:]:
                self._print(f"    | {_clip(line, 160)}")
        if outcome.transcript:
            lines = outcome.transcript
            self._print(
                "  transcript (pipe the '>' lines into the harness to replay; session ids"
                " are the harness's own):"
            )
            if len(lines) > CONSOLE_TRANSCRIPT_LINES:
                self._print(
                    f"    ... {len(lines) - CONSOLE_TRANSCRIPT_LINES} earlier lines"
                    " (see --report-json)"
                )
                lines = lines[-CONSOLE_TRANSCRIPT_LINES:]
            for line in lines:
                self._print(f"    {_clip(line)}")

    def summary(self, outcomes: list[Outcome], tally: Tally, problems: list[str]) -> None:
        counts = tally.counts
        if tally.missing:
            skipped = ", ".join(f"{name} ({n})" for name, n in sorted(tally.missing.items()))
            self._print(f"skipped {counts[SKIPPED]} vector(s) for missing features: {skipped}")
        for problem in problems:
            self._print(f"error: {problem}")
        if tally.restarts:
            self._print(f"the harness was restarted {tally.restarts} time(s)")
        if tally.aborted:
            self._print(f"run ended early: {tally.aborted}; {counts[NOT_RUN]} vector(s) not run")
        self._print(
            f"breakdown -- wrong answers: {counts[FAILED]}, errored: {counts[ERRORED]}, "
            f"unexpected passes: {counts[XPASSED]}, expected failures: {counts[XFAILED]}, "
            f"not run: {counts[NOT_RUN]}"
        )
        self._print(
            f"{counts[PASSED]} passed, {tally.failed_total} failed, {counts[SKIPPED]} skipped"
        )


def _dump(value: Any, absent: bool | None) -> str:
    return "nothing" if absent else json.dumps(value, ensure_ascii=False)


def _clip(text: str, limit: int = CONSOLE_LINE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


_XML_BAD = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    """XML 1.0 cannot hold control characters or lone surrogates: escape them visibly."""
    return _XML_BAD.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def write_junit(path: Path, outcomes: Iterable[Outcome]) -> None:
    outcomes = list(outcomes)
    counts = Counter(o.status for o in outcomes)
    suite = ET.Element(
        "testsuite",
        {
            "name": "doomloop-conformance",
            "tests": str(len(outcomes)),
            "failures": str(counts[FAILED] + counts[XPASSED]),
            "errors": str(counts[ERRORED]),
            "skipped": str(counts[SKIPPED] + counts[XFAILED] + counts[NOT_RUN]),
        },
    )
    for outcome in outcomes:
        case = ET.SubElement(
            suite,
            "testcase",
            {"classname": outcome.vector.family, "name": outcome.id, "file": outcome.file},
        )
        body = "\n".join(outcome.transcript)
        if outcome.status == FAILED:
            ET.SubElement(case, "failure", {"message": outcome.summary()}).text = body
        elif outcome.status == XPASSED:
            ET.SubElement(case, "failure", {"message": "expected failure passed"})
        elif outcome.status == ERRORED:
            assert outcome.error is not None
            text = "\n".join([body, *(f"stderr| {s}" for s in outcome.error.get("stderr", []))])
            ET.SubElement(case, "error", {"message": outcome.summary()}).text = text
        elif outcome.status == SKIPPED:
            ET.SubElement(case, "skipped", {"message": outcome.summary()})
        elif outcome.status == XFAILED:
            ET.SubElement(
                case, "skipped", {"message": f"expected failure: {outcome.expected_reason or ''}"}
            )
        elif outcome.status == NOT_RUN:
            ET.SubElement(case, "skipped", {"message": "not run (the run ended early)"})
    for element in suite.iter():
        element.attrib = {k: _xml(v) for k, v in element.attrib.items()}
        if element.text:
            element.text = _xml(element.text)
    tree = ET.ElementTree(suite)
    ET.indent(tree)
    data = ET.tostring(suite, encoding="utf-8", xml_declaration=True) + b"\n"
    vformat.write_bytes_atomic({path: data})


def write_expected_failures(path: Path, outcomes: Iterable[Outcome]) -> None:
    lines = ["# vectors that failed or errored in this run (doomloop-kit conformance run)"]
    for outcome in outcomes:
        if outcome.status in (FAILED, ERRORED, XFAILED):
            reason = outcome.expected_reason if outcome.status == XFAILED else outcome.summary()
            reason = (reason or "").replace("\n", " ")
            lines.append(f"{outcome.id}  # {_clip(reason)}")
    vformat.write_bytes_atomic({path: ("\n".join(lines) + "\n").encode("utf-8")})
