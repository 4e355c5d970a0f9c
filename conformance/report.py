"""What a conformance run shows and writes: console, JSON lines, JUnit XML.

Every report file goes through :mod:`doomloop_kit.vectorset.writing` (a plain
file replaced atomically once whole, a device written through, links
followed) and says how the run ended (:class:`~.outcomes.RunState`). When
the run starts, a plain report file is replaced by an *unfinished* report
(:func:`write_unfinished`), so that a run killed before it could write its
own (SIGKILL, the machine going down) never leaves a previous run's report
behind looking like its own.

The JSON-lines report holds a ``header`` line, one ``vector`` line per
selected vector and a ``footer`` line with the totals and how the run ended.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from doomloop_kit.vectorset import writing
from doomloop_kit.vectorset.progress import Progress, draws_bar

from .causes import Causes
from .interrupts import StdoutClosed, silence_stdout
from .outcomes import BAD_STATUSES, Outcome, RunState, Status, Tally
from .terminal import lines, shown

SHOWN_PER_CAUSE = 3
"""The failing vectors of one cause shown in detail (``-v``: every one)."""
SHOWN_CAUSES = 10
"""The causes the summary lists (``report summary`` lists them all)."""
CONSOLE_TRANSCRIPT_LINES = 30
CONSOLE_LINE_CHARS = 300

UNFINISHED = "the run has not ended, or was killed before it could write its report"
"""What an unfinished report says (:func:`write_unfinished`)."""


def json_lines(lines: Iterable[dict[str, Any]]) -> bytes:
    """The JSON-lines report's bytes (ASCII: any reader can take them)."""
    return "".join(json.dumps(line, ensure_ascii=True) + "\n" for line in lines).encode("ascii")


def write_unfinished(
    report_json: Path | None, junit_xml: Path | None, header: dict[str, Any]
) -> None:
    """Replace plain report files by reports saying the run has not ended (devices are
    left alone: they get the real report only). Raises :class:`~writing.OutputError`."""
    footer: dict[str, Any] = {"type": "footer", "status": str(RunState.UNFINISHED)}
    footer |= {"reason": UNFINISHED, "notRun": None, "exitStatus": None}
    if report_json is not None and not writing.target(report_json).through:
        writing.write_file(report_json, json_lines([header, footer]))
    if junit_xml is not None and not writing.target(junit_xml).through:
        write_junit(junit_xml, [], RunState.UNFINISHED, UNFINISHED)


class Console:
    """Progress and results on stdout: a bar on a terminal, plain lines otherwise."""

    def __init__(self, stream: TextIO, progress: str, verbose: bool) -> None:
        self.stream = stream
        self.mode = progress
        self.bar = draws_bar(progress, stream)
        self.verbose = verbose
        self.progress: Progress | None = None
        self.causes = Causes()
        self.file: str | None = None
        self.file_counts: Counter[str] = Counter()
        self.closed = False
        """Writing failed once (stdout closed): the console has gone quiet since."""
        self.raising = True
        """Raise :class:`~.interrupts.StdoutClosed` when stdout is found closed."""

    def _print(self, text: str = "") -> None:
        """A line (or lines) of the kit's own, any control character in it escaped
        (:func:`~.terminal.lines`); outside text inside one line is :func:`~.terminal.shown`."""
        if self.progress is None:
            self._write(lines(text) + "\n")
            return
        with self.progress.above():
            self._write(lines(text) + "\n")

    def _write(self, text: str) -> None:
        if self.closed:
            return
        try:
            try:
                self.stream.write(text)
            except UnicodeEncodeError:  # a lone surrogate, or a console that is not UTF-8
                encoding = getattr(self.stream, "encoding", None) or "utf-8"
                self.stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
            self.stream.flush()
        except (OSError, ValueError):
            self.closed = True
            silence_stdout()
            if self.raising:
                raise StdoutClosed() from None

    def note(self, text: str) -> None:
        self._print(text)

    def begin(self, total: int) -> None:
        """The run starts its ``total`` vectors: the bar, when one is shown."""
        through = _Through(self)
        self.progress = Progress(
            total, what="", unit="vectors", mode=self.mode, stream=through, shown_on=self.stream
        )

    def vector(self, outcome: Outcome, counts: Counter[Status]) -> None:
        if not self.bar and outcome.file != self.file:
            self._file_done()
            self.file = outcome.file
        self.file_counts[outcome.status] += 1
        status = outcome.status
        if status in BAD_STATUSES:
            self._details_once_per_cause(outcome)
        elif self.verbose or (status == Status.XFAILED and not self.bar):
            detail = shown(outcome.summary())
            line = f"{status.upper()} {shown(outcome.id)}"
            self._print(line + (f" -- {detail}" if detail else ""))
        if self.progress is not None:
            self.progress.advance(status=last_line(counts))

    def _file_done(self) -> None:
        if self.file is not None and not self.bar:
            parts = ", ".join(f"{n} {s}" for s, n in sorted(self.file_counts.items()))
            self._print(f"{shown(self.file)}: {parts}")
        self.file_counts = Counter()

    def end(self) -> None:
        self._file_done()
        self.file = None
        if self.progress is not None:
            progress, self.progress = self.progress, None
            progress.close()

    def _details_once_per_cause(self, outcome: Outcome) -> None:
        """The details of the first vectors of each cause (every vector with ``-v``); the
        others are counted, and the summary gives each cause with its count."""
        cause = self.causes.add(outcome.to_json())
        if self.verbose or cause is None or cause.count <= SHOWN_PER_CAUSE:
            self._details(outcome)
        elif cause.count == SHOWN_PER_CAUSE + 1:
            self._print(
                f"... more vectors fail with this cause (counted in the summary; -v shows each): "
                f"{_clip(cause.text)}"
            )

    def _causes(self) -> None:
        causes = self.causes.most_frequent()
        if not causes:
            return
        self._print(f"failed or errored vectors by cause ({len(causes)}):")
        for cause in causes[:SHOWN_CAUSES]:
            self._print(f"  {cause.count:6}  {_clip(cause.text)}  (first: {cause.first})")
        if len(causes) > SHOWN_CAUSES:
            self._print(
                f"  ... {len(causes) - SHOWN_CAUSES} more causes "
                "(`doomloop-kit report summary` of the --report-json report lists them all)"
            )

    def _details(self, outcome: Outcome) -> None:
        vector = outcome.vector
        label = outcome.status.upper()
        where = f"{shown(vector.id)} ({shown(outcome.file)})"
        self._print(f"{label} {where}: {shown(vector.description)}")
        if outcome.status == Status.XPASSED:
            self._print("  listed as an expected failure, but passed")
            return
        self._print(f"  {shown(outcome.summary(values=False))}")
        if outcome.wrong_answer is not None:
            wrong = outcome.wrong_answer.to_json()
            self._print(
                f"    expected: {_clip(_dump(wrong['expected'], wrong.get('expectedAbsent')))}"
            )
            self._print(f"    actual:   {_clip(_dump(wrong['actual'], wrong.get('actualAbsent')))}")
        if outcome.error is not None and outcome.error.stderr:
            self._print("  harness stderr (last lines):")
            for line in outcome.error.stderr[-10:]:
                self._print(f"    | {shown(_clip(line, 160))}")
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
                self._print(f"    {shown(_clip(line))}")

    def summary(self, tally: Tally, problems: list[str]) -> None:
        counts = tally.counts
        if tally.missing:
            skipped = ", ".join(f"{name} ({n})" for name, n in sorted(tally.missing.items()))
            self._print(
                f"skipped {counts[Status.SKIPPED]} vector(s) for missing features: {skipped}"
            )
        self._causes()
        for problem in problems:
            self._print(f"error: {problem}")
        for fault in tally.protocol_faults:
            self._print(f"harness protocol fault: {fault}")
        if tally.restarts:
            self._print(f"the harness was restarted {tally.restarts} time(s)")
        ended = tally.aborted or tally.stopped
        if ended:
            self._print(f"run ended early: {ended}; {counts[Status.NOT_RUN]} vector(s) not run")
        self._print(
            f"breakdown -- wrong answers: {counts[Status.FAILED]}, "
            f"errored: {counts[Status.ERRORED]}, unexpected passes: {counts[Status.XPASSED]}, "
            f"expected failures: {counts[Status.XFAILED]}, not run: {counts[Status.NOT_RUN]}"
        )
        self._print(last_line(counts))


class _Through:
    """The console's stream as the bar writes to it: a closed stdout is handled once,
    by :meth:`Console._write`."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def write(self, text: str) -> None:
        self.console._write(text)

    def flush(self) -> None:
        pass

    @property
    def encoding(self) -> str:  # the bar draws blocks on a UTF-8 terminal, # elsewhere
        return str(getattr(self.console.stream, "encoding", None) or "ascii")

    def fileno(self) -> int:  # the terminal's width, for the bar's
        return self.console.stream.fileno()


def last_line(counts: Counter[Status]) -> str:
    """``N passed, N failed, N errored, N skipped``, then ``, N xfailed``, ``, N xpassed``
    and ``, N not run`` when there are any: each selected vector counted once, so the
    numbers add up to the selection. Failed counts the wrong answers, xpassed the
    listed vectors that passed (both fail the run), errored the vectors the harness
    broke on (listed or not)."""
    line = (
        f"{counts[Status.PASSED]} passed, {counts[Status.FAILED]} failed, "
        f"{counts[Status.ERRORED]} errored, {counts[Status.SKIPPED]} skipped"
    )
    for status in (Status.XFAILED, Status.XPASSED, Status.NOT_RUN):
        if counts[status]:
            line += f", {counts[status]} {status.value.replace('-', ' ')}"
    return line


def _dump(value: Any, absent: bool | None) -> str:
    return "nothing" if absent else json.dumps(value, ensure_ascii=False)


def _clip(text: str, limit: int = CONSOLE_LINE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


_XML_BAD = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    """XML 1.0 cannot hold control characters or lone surrogates: escape them visibly."""
    return _XML_BAD.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def write_junit(
    path: Path, outcomes: Iterable[Outcome], state: RunState, problem: str | None = None
) -> None:
    """The JUnit XML report. A run that did not complete, or a ``problem`` of the
    run as a whole (an unusable harness), is one more test case in error, so a
    CI dashboard never shows such a run green."""
    outcomes = list(outcomes)
    counts = Counter(o.status for o in outcomes)
    run_error = problem or (None if state == RunState.COMPLETE else f"the run was {state}")
    suite = ET.Element(
        "testsuite",
        {
            "name": "doomloop-conformance",
            "tests": str(len(outcomes) + (run_error is not None)),
            "failures": str(counts[Status.FAILED] + counts[Status.XPASSED]),
            "errors": str(counts[Status.ERRORED] + (run_error is not None)),
            "skipped": str(
                counts[Status.SKIPPED] + counts[Status.XFAILED] + counts[Status.NOT_RUN]
            ),
        },
    )
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", {"name": "status", "value": str(state)})
    if run_error is not None:
        case = ET.SubElement(suite, "testcase", {"classname": "run", "name": "conformance run"})
        ET.SubElement(case, "error", {"message": run_error})
    for outcome in outcomes:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": outcome.vector.family,
                "name": outcome.id,
                "file": outcome.file,
                "time": f"{outcome.seconds:.3f}",  # overlapping: vectors run side by side
            },
        )
        body = "\n".join(outcome.transcript)
        status = outcome.status
        if status == Status.FAILED:
            ET.SubElement(case, "failure", {"message": outcome.summary()}).text = body
        elif status == Status.XPASSED:
            ET.SubElement(case, "failure", {"message": "expected failure passed"})
        elif status == Status.ERRORED:
            assert outcome.error is not None
            text = "\n".join([body, *(f"stderr| {s}" for s in outcome.error.stderr)])
            ET.SubElement(case, "error", {"message": outcome.summary()}).text = text
        elif status == Status.SKIPPED:
            ET.SubElement(case, "skipped", {"message": outcome.summary()})
        elif status == Status.XFAILED:
            ET.SubElement(
                case, "skipped", {"message": f"expected failure: {outcome.expected_reason or ''}"}
            )
        elif status == Status.NOT_RUN:
            ET.SubElement(case, "skipped", {"message": "not run (the run ended early)"})
    for element in suite.iter():
        element.attrib = {k: _xml(v) for k, v in element.attrib.items()}
        if element.text:
            element.text = _xml(element.text)
    ET.indent(ET.ElementTree(suite))
    writing.write_file(path, ET.tostring(suite, encoding="utf-8", xml_declaration=True) + b"\n")


def write_expected_failures(path: Path, outcomes: Iterable[Outcome], state: RunState) -> None:
    """The ids that failed, and the listed ones this run could not judge (skipped, or not
    run because the run ended early), which keep their reason. The ones that errored
    are named in comments: an error is never an expected failure."""
    lines = [
        "# vectors that failed in this run (doomloop-kit conformance run)",
        f"# run status: {state}",
    ]
    for outcome in outcomes:
        if outcome.status in (Status.SKIPPED, Status.NOT_RUN) and outcome.expected_reason:
            lines.append(f"{outcome.id}  # {_clip(outcome.expected_reason)} ({outcome.status})")
        elif outcome.status in (Status.FAILED, Status.XFAILED):
            reason = (
                outcome.expected_reason if outcome.status == Status.XFAILED else outcome.summary()
            )
            reason = (reason or "").replace("\n", " ")
            lines.append(f"{outcome.id}  # {_clip(reason)}")
        elif outcome.status == Status.ERRORED:
            reason = outcome.summary().replace("\n", " ")
            lines.append(f"# errored, never an expected failure: {outcome.id}  # {_clip(reason)}")
    writing.write_file(path, ("\n".join(lines) + "\n").encode("utf-8"))
