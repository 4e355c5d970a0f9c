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

This module runs the command from start to end; each of its jobs has a module
of its own: the options (:mod:`.run_arguments`), the expected-failures file
(:mod:`.expected_failures`), the harness (:mod:`.supervisor`), the order of the
vectors (:mod:`.scheduler`), one vector (:mod:`.execute`, :mod:`.judge`), what
the reports say (:mod:`.run_reports`) and how they are written
(:mod:`.report`), signals (:mod:`.interrupts`).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import signal
import sys
import traceback
from collections.abc import Iterator

from doomloop_kit.vectorset import writing
from doomloop_kit.vectorset.files import feature_vocabulary

from . import expected_failures, interrupts, report
from .expected_failures import ExpectedEntry, with_expectation
from .outcomes import ExitStatus, Outcome, RunState, Status
from .protocol import HarnessFault, ProtocolMismatch
from .run_arguments import Outputs, UsageError, add_arguments, no_match, open_vectors
from .run_reports import COMMAND, Ending, RunRecord, exit_status
from .scheduler import Scheduler
from .supervisor import HarnessOptions, Supervisor
from .terminal import shown

__all__ = ["HANDLES_INTERRUPTS", "add_arguments", "run"]

HANDLES_INTERRUPTS = True
"""The command line leaves signals waiting until :func:`run` can write the reports."""


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


class _Run(RunRecord):
    """One invocation of the command: it runs, and fills in its record as it goes."""

    def __init__(self, args: argparse.Namespace, out: report.Console, outputs: Outputs) -> None:
        super().__init__(args, outputs)
        self.out = out
        self.phase = "preparing the reports"
        self.expected: list[ExpectedEntry] = []
        self.ending: Ending | None = None

    def end(self, state: RunState, status: int, reason: str, *, aborted: str | None = None) -> None:
        if aborted is not None:
            self.tally.aborted = aborted
        self.ending = Ending(state, int(status), reason)

    def execute(self) -> None:
        """Everything from the unfinished reports to the summary (may be interrupted)."""
        args, out = self.args, self.out
        self.write_unfinished()
        self.phase = "loading the vector set"
        self.vector_set = vector_set = open_vectors(args)
        for problem in vector_set.problems:
            out.note(f"warning: integrity (--no-verify): {problem}")
        differs = vector_set.description["differsFromShipped"]
        if differs:  # verified against its own manifest, which may have been re-sealed
            more = f" and {len(differs) - 5} more" if differs[5:] else ""
            named = ", ".join(differs[:5]) + more
            out.note(f"note: this vector set differs from the set the kit ships: {named}")
        self.phase = "reading the expected failures"
        if args.expected_failures:
            self.expected = expected_failures.read_expected_failures(args.expected_failures)
        expected = self.expected
        stale = expected_failures.stale_entries(expected, vector_set.ids)
        self.phase = "selecting the vectors"
        selected = vector_set.select(self.selection)
        if not selected:
            raise UsageError(no_match(self.selection, vector_set))
        self.selected = selected
        self.phase = "starting the harness"
        known = feature_vocabulary() | {f for _, v in selected for f in v.features}
        supervisor = self.supervisor = Supervisor(HarnessOptions.from_args(args), known, out.note)
        tally = self.tally
        try:
            supervisor.start()
        except (HarnessFault, ProtocolMismatch) as problem:
            self.run_problem = f"the harness is unusable: {problem}"
            self.stderr = problem.stderr if isinstance(problem, HarnessFault) else []
            out.note(f"error: {shown(self.run_problem)}")
            for line in self.stderr[-20:]:
                out.note(f"  stderr| {line}")
            self.end(
                RunState.ABORTED, ExitStatus.ERRORED, self.run_problem, aborted=self.run_problem
            )
            return
        hello = supervisor.hello
        assert hello is not None  # started
        impl = hello["implementation"]
        out.note(
            f"harness: {shown(impl['name'])} {shown(impl['version'])} "
            f"({shown(impl['language'])}), protocol {hello['protocol']}; "
            f"{len(selected)} vector(s) selected"
        )
        self.phase = "running the vectors"
        out.begin(len(selected))
        scheduler = Scheduler(supervisor, tally, args.window, args.max_fail)
        with _frozen_heap():
            for outcome in scheduler.outcomes(selected):
                outcome = with_expectation(expected, outcome)
                self.outcomes.append(outcome)
                tally.add(outcome)
                out.vector(outcome, tally.counts)
        out.end()
        self.phase = "stopping the harness"
        supervisor.stop()
        self.problems = expected_failures.problems(
            expected, stale, self.outcomes, args.expected_failures
        )
        if tally.counts[Status.SKIPPED] == len(selected):  # nothing was checked: never green
            self.problems.append(
                f"every selected vector was skipped ({len(selected)}): the harness lacks the "
                "features they need, so nothing was checked"
            )
        out.summary(tally, self.problems)
        status = int(exit_status(tally, self.problems))
        if tally.aborted is not None:
            self.end(RunState.ABORTED, status, tally.aborted)
        elif tally.stopped is not None:
            self.ending = Ending(RunState.STOPPED, status, tally.stopped)
        else:
            self.ending = Ending(RunState.COMPLETE, status, None)

    def finish(self) -> int:
        """Stop the harness, write every report it can, say how the run ended; the exit status.

        Runs with signals held (:func:`~.interrupts.held`): nothing cuts it short."""
        self.out.raising = False
        if self.supervisor is not None:
            self.supervisor.kill()
        ending = self.ending or Ending(RunState.ABORTED, ExitStatus.ERRORED, "ended unexpectedly")
        not_run: int | None = None
        if self.selected is not None:
            for label, vector in self.selected[len(self.outcomes) :]:
                self.outcomes.append(
                    with_expectation(self.expected, Outcome(vector, label, Status.NOT_RUN))
                )
                self.tally.add(self.outcomes[-1])
            not_run = self.tally.counts[Status.NOT_RUN]
        unwritten = self.write(ending, not_run)
        status = ExitStatus.UNWRITTEN if unwritten else ending.status
        for problem in unwritten:
            self.out.note(f"error: cannot write {problem}")
        interrupts.say(self.last_words(ending, not_run, unwritten, status))
        return int(status)


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
