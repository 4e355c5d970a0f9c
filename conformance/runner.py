"""``doomloop-kit conformance run``: run the vectors against a port's harness.

The harness is any program that speaks protocol v1 (spec/protocol.md) on its
stdin/stdout; ``--port`` is the shell command that starts it. Before anything
runs, the vector set is verified against its manifest
(:mod:`doomloop_kit.vectorset.loading`) and every report path is checked.
Each vector ends as passed, failed (answered wrongly), errored (the harness
broke: crash, hang, junk, a harness-side error code), skipped (the harness
lacks a feature the vector needs) or not run (the run ended first). The last
line is ``N passed, N failed, N skipped`` where "failed" counts failures and
errors; the line before breaks it down.

Exit status (:class:`~.outcomes.ExitStatus`, spec/protocol.md#prot-running):
0 every selected vector passed; 1 a wrong answer, an unexpected pass or a
stale expected-failures entry; 2 a usage or input error (bad option, vector
set failing its integrity check, unwritable report path); 3 a vector errored
or the run was aborted (unusable harness, restart budget spent); 130 / 143
interrupted by SIGINT / SIGTERM. Every report is written in each case.
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
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import Any

from doomloop_kit.vectorset import files as vformat
from doomloop_kit.vectorset import loading, resources

from . import report
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
        help="ids or globs (one a line, '# reason' after) expected to fail; strict",
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


def read_expected_failures(path: Path) -> list[ExpectedEntry]:
    try:
        text = path.read_text(encoding="utf-8")
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


class Interrupted(BaseException):
    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


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


def run(args: argparse.Namespace) -> int:
    out = report.Console(sys.stdout, args.progress, args.verbose)
    previous = _install_signal_handlers()
    try:
        return _run(args, out)
    except UsageError as error:
        out.note(f"error: {error}")
        return ExitStatus.USAGE
    except Interrupted as interrupted:  # before the harness started: nothing to report
        out.note(f"interrupted by {interrupted} before the run started")
        return 128 + interrupted.signum
    except KeyboardInterrupt:
        out.note("interrupted before the run started")
        return ExitStatus.INTERRUPTED_SIGINT
    finally:
        _restore_signal_handlers(previous)


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
        outputs = cls(args.report_json, args.junit_xml, args.write_expected_failures)
        for option, path in (
            ("--report-json", outputs.report_json),
            ("--junit-xml", outputs.junit_xml),
            ("--write-expected-failures", outputs.expected_failures),
        ):
            if path is not None:
                try:
                    report.check_output_path(path, option)
                except report.OutputPathError as error:
                    raise UsageError(str(error)) from error
        return outputs


def _run(args: argparse.Namespace, out: report.Console) -> int:
    outputs = Outputs.checked(args)
    for path in (outputs.report_json, outputs.junit_xml):
        if path is not None:
            report.remove_stale(path)
    try:
        return _run_checked(args, out, outputs)
    except UsageError as error:  # bad input: the JSON and JUnit reports say so
        footer = _footer(
            Tally(aborted=str(error)), RunState.ABORTED, int(ExitStatus.USAGE), [], [], 0
        )
        header = {"type": "header", "runner": _runner_json(), "protocol": PROTOCOL_VERSION}
        _write_reports(
            replace(outputs, expected_failures=None),  # nothing is known: keep that file
            header=header,
            outcomes=[],
            footer=footer,
            state=RunState.ABORTED,
            run_problem=str(error),
        )
        raise


def _run_checked(args: argparse.Namespace, out: report.Console, outputs: Outputs) -> int:
    vector_set = _open(args)
    for problem in vector_set.problems:
        out.note(f"warning: integrity (--no-verify): {problem}")
    expected = read_expected_failures(args.expected_failures) if args.expected_failures else []
    all_ids = vector_set.ids
    stale = [e for e in expected if not any(fnmatch.fnmatchcase(i, e.pattern) for i in all_ids)]
    selection = loading.Selection(tuple(args.family), tuple(args.tag), tuple(args.patterns))
    selected = vector_set.select(selection)
    if not selected:
        raise UsageError(f"no vector matches the selection {json.dumps(selection.to_json())}")

    known = vformat.feature_vocabulary() | {f for _, v in selected for f in v.features}
    supervisor = Supervisor(HarnessOptions.from_args(args), known, out.note)
    tally = Tally()
    outcomes: list[Outcome] = []
    state, status, problems = RunState.COMPLETE, int(ExitStatus.PASSED), list[str]()
    run_problem: str | None = None
    stderr: list[str] = []
    try:
        try:
            supervisor.start()
        except (HarnessFault, ProtocolMismatch) as problem:
            run_problem = f"the harness is unusable: {problem}"
            stderr = problem.stderr if isinstance(problem, HarnessFault) else []
            out.note(f"error: {run_problem}")
            for line in stderr[-20:]:
                out.note(f"  stderr| {line}")
            tally.aborted = run_problem
            state, status = RunState.ABORTED, int(ExitStatus.ERRORED)
            return status
        impl = supervisor.hello["implementation"]
        out.note(
            f"harness: {impl['name']} {impl['version']} ({impl['language']}), "
            f"protocol {supervisor.hello['protocol']}; {len(selected)} vector(s) selected"
        )
        out.begin(len(selected))
        scheduler = Scheduler(supervisor, tally, args.window, args.max_fail)
        with _frozen_heap():
            for outcome in scheduler.outcomes(selected):
                entry = match_expected(expected, outcome.id)
                if entry is not None:
                    outcome = outcome.expected_to_fail(entry.reason)
                outcomes.append(outcome)
                tally.add(outcome)
                out.vector(outcome, tally.counts)
        out.end()
        supervisor.stop()
        problems = _strictness(expected, stale, outcomes, args.expected_failures)
        if tally.aborted is not None:
            state = RunState.ABORTED
        status = int(_exit_status(tally, problems))
        out.summary(tally, problems)
        return status
    except Interrupted as interrupted:
        out.end()
        out.note(f"interrupted by {interrupted}; the harness was stopped")
        state, status = RunState.INTERRUPTED, 128 + interrupted.signum
        return status
    except KeyboardInterrupt:
        out.end()
        out.note("interrupted; the harness was stopped")
        state, status = RunState.INTERRUPTED, int(ExitStatus.INTERRUPTED_SIGINT)
        return status
    finally:
        supervisor.kill()
        for label, vector in selected[len(outcomes) :]:
            outcome = Outcome(vector, label, Status.NOT_RUN)
            entry = match_expected(expected, vector.id)
            outcomes.append(outcome if entry is None else outcome.expected_to_fail(entry.reason))
            tally.add(outcomes[-1])
        _write_reports(
            outputs,
            header=_header(args, vector_set, supervisor, selection, len(selected)),
            outcomes=outcomes,
            footer=_footer(tally, state, status, problems, stderr, supervisor.restarts),
            state=state,
            run_problem=run_problem,
        )


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


def _write_reports(
    outputs: Outputs,
    *,
    header: dict[str, Any],
    outcomes: list[Outcome],
    footer: dict[str, Any],
    state: RunState,
    run_problem: str | None,
) -> None:
    if outputs.report_json is not None:
        lines = [header, *(outcome.to_json() for outcome in outcomes), footer]
        text = "".join(json.dumps(line, ensure_ascii=True) + "\n" for line in lines)
        report.write_atomic(outputs.report_json, text.encode("utf-8"))
    if outputs.junit_xml is not None:
        report.write_junit(outputs.junit_xml, outcomes, state, run_problem)
    if outputs.expected_failures is not None:
        report.write_expected_failures(outputs.expected_failures, outcomes, state)


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


def _header(
    args: argparse.Namespace,
    vector_set: loading.VectorSet,
    supervisor: Supervisor,
    selection: loading.Selection,
    count: int,
) -> dict[str, Any]:
    hello = supervisor.hello
    return {
        "type": "header",
        "runner": _runner_json(),
        "protocol": PROTOCOL_VERSION,
        "vectorSet": vector_set.description,
        "harness": None
        if not hello
        else {
            "command": args.port,
            "implementation": hello["implementation"],
            "protocol": hello["protocol"],
            "features": hello["features"],
        },
        "selection": {**selection.to_json(), "vectors": count},
    }


def _runner_json() -> dict[str, str]:
    return {"name": "doomloop-kit conformance run", "version": runner_version()}


def _footer(
    tally: Tally,
    state: RunState,
    status: int,
    problems: list[str],
    stderr: list[str],
    restarts: int,
) -> dict[str, Any]:
    footer: dict[str, Any] = {
        "type": "footer",
        "status": str(state),
        "totals": tally.totals(),
        "missingFeatures": dict(sorted(tally.missing.items())),
        "restarts": restarts,
        "aborted": tally.aborted,
        "stopped": tally.stopped,
        "protocolFaults": tally.protocol_faults,
        "problems": problems,
        "exitStatus": status,
    }
    if stderr:
        footer["stderr"] = stderr
    return footer


def _install_signal_handlers() -> dict[int, Any]:
    if threading.current_thread() is not threading.main_thread():
        return {}

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Interrupted(signum)

    previous: dict[int, Any] = {}
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        previous[signum] = signal.signal(signum, handler)
    return previous


def _restore_signal_handlers(previous: dict[int, Any]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)
