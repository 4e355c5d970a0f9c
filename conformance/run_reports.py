"""What the reports of one ``conformance run`` say: header, footer, and how it ended.

:class:`RunRecord` is filled in as the run goes (:mod:`.runner`); whatever
the end -- complete, stopped, aborted, interrupted -- :meth:`RunRecord.write`
writes every report asked for, each saying the same ending, and
:meth:`RunRecord.last_words` is the one line on stderr that says it too
(docs/guide/ci.md#how-a-run-ends, spec/protocol.md#prot-running).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doomloop_kit.vectorset import loading, writing

from . import report
from .outcomes import ExitStatus, Outcome, RunState, Status, Tally
from .protocol.messages import PROTOCOL_VERSION
from .run_arguments import Outputs, selection_of
from .scheduler import Selected
from .supervisor import Supervisor

COMMAND = "doomloop-kit conformance run"


@dataclass(frozen=True)
class Ending:
    """How the run ended."""

    state: RunState
    status: int
    reason: str | None
    """In a few words (None: it completed)."""


def exit_status(tally: Tally, problems: list[str]) -> ExitStatus:
    """The exit status of a run that ran its vectors (spec/protocol.md#prot-running): a
    selection every vector of which was skipped checked nothing, which is a usage error."""
    if tally.aborted is not None or tally.counts[Status.ERRORED] or tally.protocol_faults:
        return ExitStatus.ERRORED
    if tally.counts[Status.SKIPPED] and tally.counts.total() == tally.counts[Status.SKIPPED]:
        return ExitStatus.USAGE
    if tally.failed_total or problems:
        return ExitStatus.FAILED
    return ExitStatus.PASSED


class RunRecord:
    """What the reports of one invocation need, filled in as it goes."""

    def __init__(self, args: argparse.Namespace, outputs: Outputs) -> None:
        self.args, self.outputs = args, outputs
        self.selection = selection_of(args)
        self.vector_set: loading.VectorSet | None = None
        self.selected: Selected | None = None
        """None until the selection is made (then the not-run vectors are known)."""
        self.supervisor: Supervisor | None = None
        self.tally = Tally()
        self.outcomes: list[Outcome] = []
        self.problems: list[str] = []
        self.stderr: list[str] = []
        self.run_problem: str | None = None

    def header(self) -> dict[str, Any]:
        hello = self.supervisor.hello if self.supervisor is not None else None
        return {
            "type": "header",
            "runner": {"name": COMMAND, "version": runner_version()},
            "protocol": PROTOCOL_VERSION,
            "vectorSet": None if self.vector_set is None else self.vector_set.description,
            "harness": None
            if hello is None
            else {
                "command": self.args.port,
                "implementation": hello["implementation"],
                "protocol": hello["protocol"],
                "features": hello["features"],
            },
            "selection": {
                **self.selection.to_json(),
                "vectors": None if self.selected is None else len(self.selected),
            },
        }

    def footer(self, ending: Ending, not_run: int | None) -> dict[str, Any]:
        tally = self.tally
        footer: dict[str, Any] = {
            "type": "footer",
            "status": str(ending.state),
            "reason": ending.reason,
            "totals": tally.totals(),
            "notRun": not_run,
            "missingFeatures": dict(sorted(tally.missing.items())),
            "restarts": self.supervisor.restarts if self.supervisor is not None else 0,
            "aborted": tally.aborted,
            "stopped": tally.stopped,
            "protocolFaults": tally.protocol_faults,
            "problems": self.problems,
            "exitStatus": ending.status,
        }
        if self.stderr:
            footer["stderr"] = self.stderr
        return footer

    def write_unfinished(self) -> None:
        """Reports saying the run has not ended, until it has (:func:`report.write_unfinished`)."""
        report.write_unfinished(self.outputs.report_json, self.outputs.junit_xml, self.header())

    def write(self, ending: Ending, not_run: int | None) -> list[str]:
        """Write each report asked for; the ones that could not be written (option, path, why)."""
        outputs, unwritten = self.outputs, []
        writers: list[tuple[str, Path | None, Callable[[Path], None]]] = [
            (
                "--report-json",
                outputs.report_json,
                lambda path: writing.write_file(
                    path,
                    report.json_lines(
                        [
                            self.header(),
                            *(outcome.to_json() for outcome in self.outcomes),
                            self.footer(ending, not_run),
                        ]
                    ),
                ),
            ),
            (
                "--junit-xml",
                outputs.junit_xml,
                lambda path: report.write_junit(
                    path, self.outcomes, ending.state, self.run_problem or ending.reason
                ),
            ),
        ]
        if self.selected is not None:  # else nothing is known: that file is kept as it is
            writers.append(
                (
                    "--write-expected-failures",
                    outputs.expected_failures,
                    lambda path: report.write_expected_failures(path, self.outcomes, ending.state),
                )
            )
        for option, path, write in writers:
            if path is None:
                continue
            try:
                write(path)
            except writing.OutputError as error:
                unwritten.append(f"{option} {error}")
        return unwritten

    def last_words(
        self, ending: Ending, not_run: int | None, unwritten: list[str], status: int
    ) -> str:
        """The line on stderr: how the run ended, what was judged, the exit status."""
        what = str(ending.state)
        if ending.reason:
            what += f": {ending.reason.splitlines()[0]}"
        judged = "no vector was run" if not_run is None else report.last_line(self.tally.counts)
        if unwritten:
            what = f"{what}; cannot write {'; '.join(unwritten)} (the file keeps what it held)"
        return f"{COMMAND}: {what}; {judged} (exit {status})"


def runner_version() -> str:
    from importlib import metadata  # only when a report is written: it costs start-up time

    try:
        return metadata.version("doomloop-kit")
    except metadata.PackageNotFoundError:  # pragma: no cover
        return "0+unknown"
