"""``doomloop-kit conformance run``: run the vectors against a port's harness.

The harness is any program that speaks protocol v1 (spec/protocol.md) on its
stdin/stdout; ``--port`` is the shell command that starts it. Before anything
runs, the vector set is verified against its manifest
(:mod:`doomloop_kit.vectorset.loading`) and every report path is checked.
Each vector ends as passed, failed (answered wrongly), errored (the harness
broke: crash, hang, junk, a harness-side error code), skipped (the harness
lacks a feature the vector needs) or not run (the run ended first). The last
line on stdout is ``N passed, N failed, N errored, N skipped`` (``, N not
run`` when the run ended early); the line before breaks it down.

Exit status (:class:`~.outcomes.ExitStatus`, spec/protocol.md#prot-running,
docs/guide/ci.md#how-a-run-ends): 0 every selected vector passed; 1 a wrong
answer, an unexpected pass or a stale expected-failures entry; 2 a usage or
input error (bad option, vector set failing its integrity check, unwritable
or clashing report paths); 3 a vector errored or the run was aborted
(unusable harness, restart budget spent); 4 a report could not be written
(a full disk); 129 / 130 / 143 interrupted by SIGHUP / SIGINT / SIGTERM,
at any moment, loading included; 141 stdout was closed. Whatever the end,
the command prints one line on stderr saying how the run ended, and writes
every report it can, saying the same: a report never says ``complete`` for a
run that was not.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import fnmatch
import gc
import json
import signal
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doomloop_kit.vectorset import files as vformat
from doomloop_kit.vectorset import loading, resources, writing

from . import interrupts, report
from .execute import VectorRun
from .outcomes import ExitStatus, HarnessError, Outcome, RunState, Status, Tally
from .protocol import PROTOCOL_VERSION, HarnessFault, ProtocolMismatch
from .supervisor import (
    BudgetSpent,
    HarnessOptions,
    Supervisor,
    add_harness_arguments,
    positive_int,
)

Selected = list[tuple[str, vformat.Vector]]

HANDLES_INTERRUPTS = True
"""The command line leaves signals waiting until :func:`run` can write the reports."""


def runner_version() -> str:
    from importlib import metadata  # only when a report is written: it costs start-up time

    try:
        return metadata.version("doomloop-kit")
    except metadata.PackageNotFoundError:  # pragma: no cover
        return "0+unknown"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files",
        nargs="*",
        type=Path,
        help="vector files to run (default: every file the manifest lists)",
    )
    add_harness_arguments(parser, max_restarts=5)
    parser.add_argument(
        "--vectors",
        type=Path,
        default=None,
        metavar="DIR",
        help="vector root holding manifest.json (default: the vector set the kit ships)",
    )
    parser.add_argument(
        "--no-verify",
        action="store_true",
        help="run even when the vector set fails its integrity check (recorded in the report)",
    )
    parser.add_argument(
        "--family",
        action="append",
        default=[],
        metavar="FAMILY",
        help="only vectors of this family, the part of the id before '/', or of the families "
        "a glob matches ('engine-*': every engine family) (repeatable)",
    )
    parser.add_argument(
        "--tag",
        action="append",
        default=[],
        metavar="TAG",
        help="only vectors carrying this tag (repeatable)",
    )
    parser.add_argument(
        "-k",
        action="append",
        default=[],
        dest="patterns",
        metavar="GLOB",
        help="only vectors whose id matches this glob, e.g. 'facts/fanout-*' (repeatable)",
    )
    parser.add_argument(
        "--window",
        type=positive_int,
        default=16,
        metavar="N",
        help="vectors in flight on the harness at once (default 16; 1 with --max-fail)",
    )
    parser.add_argument(
        "-x",
        action="store_const",
        const=1,
        dest="max_fail",
        help="stop at the first failure (same as --max-fail 1)",
    )
    parser.add_argument(
        "--max-fail",
        type=positive_int,
        default=None,
        metavar="N",
        help="stop after N failed or errored vectors",
    )
    parser.add_argument(
        "--expected-failures",
        type=Path,
        metavar="FILE",
        help="ids or globs (one a line, '# reason' after) expected to fail; strict. "
        f"{resources.PROFILE_PREFIX}NAME names a profile the kit ships "
        f"({', '.join(resources.profile_names()) or 'none'}), e.g. for the SDK",
    )
    parser.add_argument(
        "--write-expected-failures",
        type=Path,
        metavar="FILE",
        help="write the ids that failed or errored in this run to FILE",
    )
    parser.add_argument(
        "--report-json",
        type=Path,
        metavar="FILE",
        help="JSON-lines report: header, one line per vector, footer",
    )
    parser.add_argument("--junit-xml", type=Path, metavar="FILE", help="JUnit XML report")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="a line for every vector, passed ones included"
    )
    parser.add_argument(
        "--progress",
        choices=("auto", "bar", "lines"),
        default="auto",
        help="a progress bar (auto: when stdout is a terminal) or plain lines",
    )


class UsageError(Exception):
    """Bad arguments or unusable inputs: exit 2 with the message."""


# -- expected failures ----------------------------------------------------------------


@dataclass(frozen=True)
class ExpectedEntry:
    pattern: str
    reason: str
    line: int


def expected_failures_file(path: Path) -> Path:
    """The file ``--expected-failures`` names: ``profile:NAME`` is a profile the kit
    ships (installed or not), anything else a path."""
    name = str(path)
    if not name.startswith(resources.PROFILE_PREFIX):
        return path
    try:
        return resources.profile_path(name.removeprefix(resources.PROFILE_PREFIX))
    except resources.MissingResource as error:
        raise UsageError(f"--expected-failures {name}: {error}") from error


def read_expected_failures(path: Path) -> list[ExpectedEntry]:
    try:
        text = expected_failures_file(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read expected failures {path}: {error}") from error
    entries = []
    for number, raw in enumerate(text.splitlines(), start=1):
        pattern, _, reason = raw.partition("#")
        pattern = pattern.strip()
        if not pattern:
            continue
        if len(pattern.split()) != 1:
            raise UsageError(f"{path}:{number}: one id or glob per line, '# reason' after it")
        entries.append(ExpectedEntry(pattern, reason.strip(), number))
    return entries


def match_expected(entries: Sequence[ExpectedEntry], vector_id: str) -> ExpectedEntry | None:
    for entry in entries:
        if fnmatch.fnmatchcase(vector_id, entry.pattern):
            return entry
    return None


# -- scheduling ---------------------------------------------------------------------------


class Scheduler:
    """Runs a selection on a supervised harness; yields outcomes in selection order.

    Up to ``window`` vectors are in flight at once: while one waits for an
    answer (its session id, a resume's state, its last step) the next ones are
    already sent. When the harness breaks, the vector that owns the request the
    fault concerns is charged with it; the other vectors in flight are innocent
    and run again on the restarted harness. With ``max_fail`` the window is 1,
    so that the run stops exactly after N failures.
    """

    def __init__(
        self, supervisor: Supervisor, tally: Tally, window: int, max_fail: int | None
    ) -> None:
        self.supervisor = supervisor
        self.tally = tally
        self.window = 1 if max_fail is not None else window
        self.max_fail = max_fail

    def outcomes(self, selected: Selected) -> Iterator[Outcome]:
        todo: collections.deque[tuple[int, str, vformat.Vector]] = collections.deque(
            (position, label, vector) for position, (label, vector) in enumerate(selected)
        )
        self.positions = {vector.id: position for position, (_, vector) in enumerate(selected)}
        self.results: dict[int, Outcome] = {}
        self.emitted = 0
        active: list[tuple[int, VectorRun]] = []
        while todo or active:
            while len(active) < self.window and todo:
                position, label, vector = todo.popleft()
                run = self._begin(position, label, vector)
                if run is not None:
                    active.append((position, run))
            if active:
                active = self._answer(active, todo)
            while self.emitted in self.results:  # in selection order, as soon as possible
                yield self.results.pop(self.emitted)
                self.emitted += 1

    def _begin(self, position: int, label: str, vector: vformat.Vector) -> VectorRun | None:
        """Start a vector; None when its outcome is already known."""
        if self.max_fail is not None and self.tally.failed_total >= self.max_fail:
            self.tally.stopped = f"stopped after {self.max_fail} failed vector(s) (--max-fail)"
        if self.tally.aborted is not None or self.tally.stopped is not None:
            self.results[position] = Outcome(vector, label, Status.NOT_RUN)
            return None
        missing = tuple(sorted(set(vector.features) - self.supervisor.features))
        if missing:
            self.results[position] = Outcome(
                vector, label, Status.SKIPPED, missing_features=missing
            )
            return None
        connection = self.supervisor.connection
        if connection is None:
            try:
                connection = self.supervisor.restart()
            except (BudgetSpent, ProtocolMismatch) as problem:
                self.tally.aborted = f"the restarted harness is unusable: {problem}"
                self.results[position] = Outcome(vector, label, Status.NOT_RUN)
                return None
            except HarnessFault as fault:
                self.results[position] = Outcome(
                    vector,
                    label,
                    Status.ERRORED,
                    error=HarnessError(
                        "handshake",
                        f"restarting the harness failed: {fault}",
                        stderr=tuple(fault.stderr),
                    ),
                )
                return None
        run = VectorRun(connection, vector, label)
        if run.advance():
            self.results[position] = run.finish()
            return None
        return run

    def _answer(
        self,
        active: list[tuple[int, VectorRun]],
        todo: collections.deque[tuple[int, str, vformat.Vector]],
    ) -> list[tuple[int, VectorRun]]:
        """Receive the next answers; return the vectors still in flight."""
        connection = self.supervisor.connection
        assert connection is not None
        first = min(active, key=lambda item: item[1].waiting.request["id"])
        try:
            connection.receive(first[1].waiting)
        except HarnessFault as fault:
            owner = self._culprit(fault, active, connection.oldest_pending(), first)
            stderr = self.supervisor.discard()  # after the kill stderr is complete
            for position, run in reversed(active):  # innocent: run again after the restart
                if owner is None or run is not owner[1]:
                    todo.appendleft((position, run.file, run.vector))
            if owner is not None:
                self.results[owner[0]] = owner[1].fault_outcome(fault).with_stderr(stderr)
            else:
                self._charge_finished(fault, stderr)
            return []
        still: list[tuple[int, VectorRun]] = []
        for position, run in active:
            if run.advance():
                self.results[position] = run.finish()
            else:
                still.append((position, run))
        return still

    @staticmethod
    def _culprit(
        fault: HarnessFault,
        active: list[tuple[int, VectorRun]],
        pending: Any,
        first: tuple[int, VectorRun],
    ) -> tuple[int, VectorRun] | None:
        """The vector in flight the fault is charged to (None: one already finished)."""
        if fault.culprit is not None:
            return next((item for item in active if item[1].vector.id == fault.culprit), None)
        return next((item for item in active if item[1].owns(pending)), first)

    def _charge_finished(self, fault: HarnessFault, stderr: list[str]) -> None:
        """A duplicate answer to a vector already judged: its outcome becomes errored if it
        has not been reported yet; otherwise the fault is a protocol fault of the run."""
        assert fault.culprit is not None
        position = self.positions.get(fault.culprit)
        finished = self.results.get(position) if position is not None else None
        if position is None or finished is None:
            self.tally.protocol_faults.append(f"{fault.cause}: {fault.message}")
            return
        self.results[position] = Outcome(
            finished.vector,
            finished.file,
            Status.ERRORED,
            error=HarnessError(fault.cause, fault.message, stderr=tuple(stderr)),
            transcript=finished.transcript,
            fault=True,
        )


# -- the run ----------------------------------------------------------------------------

COMMAND = "doomloop-kit conformance run"


def run(args: argparse.Namespace) -> int:
    """The command: every way it ends writes the reports it can and says how it ended
    (docs/guide/ci.md#how-a-run-ends). Signals wait except while the run works
    (:func:`~.interrupts.interruptible`): the reports are always written whole."""
    out = report.Console(sys.stdout, args.progress, args.verbose)
    with interrupts.held():
        try:
            outputs = Outputs.checked(args)
        except UsageError as error:  # nothing may be written: the paths are wrong
            out.raising = False
            out.note(f"error: {error}")
            interrupts.say(f"{COMMAND}: usage error: {_first_line(error)} (exit 2)")
            return ExitStatus.USAGE
        the_run = _Run(args, out, outputs)
        try:
            with interrupts.interruptible():
                the_run.execute()
        except UsageError as error:
            out.raising = False
            out.note(f"error: {error}")
            the_run.end(RunState.ABORTED, ExitStatus.USAGE, str(error), aborted=str(error))
        except (interrupts.Interrupted, KeyboardInterrupt) as stop:
            signum = stop.signum if isinstance(stop, interrupts.Interrupted) else signal.SIGINT
            name = signal.Signals(signum).name
            out.raising = False
            out.end()
            out.note(f"interrupted by {name}; the harness was stopped")
            the_run.end(
                RunState.INTERRUPTED, 128 + signum, f"interrupted by {name} while {the_run.phase}"
            )
        except interrupts.StdoutClosed:
            the_run.end(
                RunState.INTERRUPTED,
                ExitStatus.STDOUT_CLOSED,
                f"stdout was closed while {the_run.phase}",
            )
        except writing.OutputError as error:  # the unfinished reports could not be written
            the_run.end(RunState.ABORTED, ExitStatus.UNWRITTEN, f"cannot write {error}")
        except Exception as error:  # a bug of the kit: the reports must not say complete
            reason = f"internal error of the kit while {the_run.phase}: {error!r}"
            traceback.print_exc()
            the_run.end(RunState.ABORTED, ExitStatus.ERRORED, reason, aborted=reason)
        return the_run.finish()


def _first_line(error: BaseException) -> str:
    return str(error).split("\n", 1)[0]


def _open(args: argparse.Namespace) -> loading.VectorSet:
    verify = not args.no_verify
    try:
        if args.files:
            vector_set = loading.open_vector_files(args.files, verify=verify)
        else:
            if args.vectors is not None:
                vector_set = loading.open_vector_set(args.vectors, verify=verify)
            else:
                shipped = resources.vectors_root()
                vector_set = loading.open_vector_set(shipped, verify=verify, shipped=True)
    except (loading.VectorSetError, resources.MissingResource) as error:
        raise UsageError(f"cannot use the vectors: {error}") from error
    return vector_set


@dataclass(frozen=True)
class Outputs:
    report_json: Path | None
    junit_xml: Path | None
    expected_failures: Path | None

    @classmethod
    def checked(cls, args: argparse.Namespace) -> Outputs:
        """The report paths, each writable and each its own file (spec/protocol.md#prot-running)."""
        outputs = cls(args.report_json, args.junit_xml, args.write_expected_failures)
        try:
            writing.check_outputs(outputs.named())
        except writing.OutputError as error:
            raise UsageError(str(error)) from error
        return outputs

    def named(self) -> list[tuple[str, Path]]:
        return [
            (option, path)
            for option, path in (
                ("--report-json", self.report_json),
                ("--junit-xml", self.junit_xml),
                ("--write-expected-failures", self.expected_failures),
            )
            if path is not None
        ]


@dataclass(frozen=True)
class _Ending:
    state: RunState
    status: int
    reason: str | None
    """How the run ended, in a few words (None: it completed)."""


class _Run:
    """One invocation of the command: what its reports need, filled in as it goes."""

    def __init__(self, args: argparse.Namespace, out: report.Console, outputs: Outputs) -> None:
        self.args, self.out, self.outputs = args, out, outputs
        self.phase = "preparing the reports"
        self.selection = loading.Selection(
            tuple(args.family), tuple(args.tag), tuple(args.patterns)
        )
        self.vector_set: loading.VectorSet | None = None
        self.selected: Selected | None = None
        """None until the selection is made (then the not-run vectors are known)."""
        self.expected: list[ExpectedEntry] = []
        self.supervisor: Supervisor | None = None
        self.tally = Tally()
        self.outcomes: list[Outcome] = []
        self.problems: list[str] = []
        self.stderr: list[str] = []
        self.run_problem: str | None = None
        self.ending: _Ending | None = None

    def end(self, state: RunState, status: int, reason: str, *, aborted: str | None = None) -> None:
        if aborted is not None:
            self.tally.aborted = aborted
        self.ending = _Ending(state, int(status), reason)

    def execute(self) -> None:
        """Everything from the unfinished reports to the summary (may be interrupted)."""
        args, out = self.args, self.out
        report.write_unfinished(self.outputs.report_json, self.outputs.junit_xml, self.header())
        self.phase = "loading the vector set"
        self.vector_set = vector_set = _open(args)
        for problem in vector_set.problems:
            out.note(f"warning: integrity (--no-verify): {problem}")
        self.phase = "reading the expected failures"
        if args.expected_failures:
            self.expected = read_expected_failures(args.expected_failures)
        expected, all_ids = self.expected, vector_set.ids
        stale = [e for e in expected if not any(fnmatch.fnmatchcase(i, e.pattern) for i in all_ids)]
        self.phase = "selecting the vectors"
        selected = vector_set.select(self.selection)
        if not selected:
            raise UsageError(
                f"no vector matches the selection {json.dumps(self.selection.to_json())}"
            )
        self.selected = selected
        self.phase = "starting the harness"
        known = vformat.feature_vocabulary() | {f for _, v in selected for f in v.features}
        supervisor = self.supervisor = Supervisor(HarnessOptions.from_args(args), known, out.note)
        tally = self.tally
        try:
            supervisor.start()
        except (HarnessFault, ProtocolMismatch) as problem:
            self.run_problem = f"the harness is unusable: {problem}"
            self.stderr = problem.stderr if isinstance(problem, HarnessFault) else []
            out.note(f"error: {self.run_problem}")
            for line in self.stderr[-20:]:
                out.note(f"  stderr| {line}")
            self.end(
                RunState.ABORTED, ExitStatus.ERRORED, self.run_problem, aborted=self.run_problem
            )
            return
        impl = supervisor.hello["implementation"]
        out.note(
            f"harness: {impl['name']} {impl['version']} ({impl['language']}), "
            f"protocol {supervisor.hello['protocol']}; {len(selected)} vector(s) selected"
        )
        self.phase = "running the vectors"
        out.begin(len(selected))
        scheduler = Scheduler(supervisor, tally, args.window, args.max_fail)
        with _frozen_heap():
            for outcome in scheduler.outcomes(selected):
                entry = match_expected(expected, outcome.id)
                if entry is not None:
                    outcome = outcome.expected_to_fail(entry.reason)
                self.outcomes.append(outcome)
                tally.add(outcome)
                out.vector(outcome, tally.counts)
        out.end()
        self.phase = "stopping the harness"
        supervisor.stop()
        self.problems = _strictness(expected, stale, self.outcomes, args.expected_failures)
        out.summary(tally, self.problems)
        status = int(_exit_status(tally, self.problems))
        if tally.aborted is not None:
            self.end(RunState.ABORTED, status, tally.aborted)
        elif tally.stopped is not None:
            self.ending = _Ending(RunState.STOPPED, status, tally.stopped)
        else:
            self.ending = _Ending(RunState.COMPLETE, status, None)

    def finish(self) -> int:
        """Stop the harness, write every report it can, say how the run ended; the exit status.

        Runs with signals held (:func:`~.interrupts.held`): nothing cuts it short."""
        self.out.raising = False
        if self.supervisor is not None:
            self.supervisor.kill()
        ending = self.ending or _Ending(RunState.ABORTED, ExitStatus.ERRORED, "ended unexpectedly")
        not_run: int | None = None
        if self.selected is not None:
            for label, vector in self.selected[len(self.outcomes) :]:
                outcome = Outcome(vector, label, Status.NOT_RUN)
                entry = match_expected(self.expected, vector.id)
                self.outcomes.append(
                    outcome if entry is None else outcome.expected_to_fail(entry.reason)
                )
                self.tally.add(self.outcomes[-1])
            not_run = self.tally.counts[Status.NOT_RUN]
        unwritten = self._write_reports(ending, not_run)
        status = ExitStatus.UNWRITTEN if unwritten else ending.status
        for problem in unwritten:
            self.out.note(f"error: cannot write {problem}")
        interrupts.say(self._last_words(ending, not_run, unwritten, status))
        return int(status)

    def _last_words(
        self, ending: _Ending, not_run: int | None, unwritten: list[str], status: int
    ) -> str:
        """The line on stderr: how the run ended, what was judged, the exit status."""
        what = str(ending.state)
        if ending.reason:
            what += f": {ending.reason.splitlines()[0]}"
        judged = "no vector was run" if not_run is None else report.last_line(self.tally.counts)
        if unwritten:
            what = f"{what}; cannot write {'; '.join(unwritten)} (the file keeps what it held)"
        return f"{COMMAND}: {what}; {judged} (exit {status})"

    def header(self) -> dict[str, Any]:
        hello = self.supervisor.hello if self.supervisor is not None else {}
        return {
            "type": "header",
            "runner": _runner_json(),
            "protocol": PROTOCOL_VERSION,
            "vectorSet": None if self.vector_set is None else self.vector_set.description,
            "harness": None
            if not hello
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

    def footer(self, ending: _Ending, not_run: int | None) -> dict[str, Any]:
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

    def _write_reports(self, ending: _Ending, not_run: int | None) -> list[str]:
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


@contextlib.contextmanager
def _frozen_heap() -> Iterator[None]:
    """Full collections meanwhile leave alone what exists now: the loaded vectors,
    which live as long as the run (walking them again and again costs a run
    against a fast harness about a tenth of its CPU time)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _exit_status(tally: Tally, problems: list[str]) -> ExitStatus:
    if tally.aborted is not None or tally.counts[Status.ERRORED] or tally.protocol_faults:
        return ExitStatus.ERRORED
    if tally.failed_total or problems:
        return ExitStatus.FAILED
    return ExitStatus.PASSED


def _strictness(
    expected: list[ExpectedEntry],
    stale: list[ExpectedEntry],
    outcomes: list[Outcome],
    path: Path | None,
) -> list[str]:
    problems = [
        f"{path}:{entry.line}: entry {entry.pattern!r} matches no vector; remove it"
        for entry in stale
    ]
    for outcome in outcomes:
        if outcome.status == Status.XPASSED:
            entry = match_expected(expected, outcome.id)
            assert entry is not None
            problems.append(
                f"{path}:{entry.line}: {outcome.id} is listed as an expected "
                "failure but passed; remove the entry"
            )
    return problems


def _runner_json() -> dict[str, str]:
    return {"name": "doomloop-kit conformance run", "version": runner_version()}
