"""``doomloop-kit conformance fuzz``: differential fuzzing of a port against the reference.

Draws transcripts live from the Hypothesis strategies of
:mod:`doomloop_kit.generators.strategies`, turns each into a vector whose
expectations come from the reference (:func:`~doomloop_kit.generators.build.build_vector`),
and runs it through the port's harness exactly as ``conformance run`` would.
On the first mismatch Hypothesis shrinks the transcript; the minimal one is
printed with the runner's failure report and written as a ready-to-commit
vector file ``<out>/curated/fuzz-<family>.json``. With the same ``--seed``,
port and code, a run draws and shrinks the same transcripts.

With ``--against COMMAND`` the oracle is a second harness instead (another
port, or the SDK's own module behind the TypeScript harness): each transcript
runs on the ``--against`` harness first, its answers become the expectations,
and the ``--port`` harness is judged against them. Only transcripts whose
features both harnesses declare are drawn. The vector written on a difference
(``<out>/curated/fuzz-against-<family>.json``) holds the ``--against``
harness's answers, and the output says whether the reference agrees with
either side at the first differing step. A fault is named with its side.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from doomloop_kit.generators import build, strategies
from doomloop_kit.generators.reproducible import seed_only
from doomloop_kit.vectorset import files as vformat
from doomloop_kit.vectorset import writing
from hypothesis import HealthCheck, Phase, Verbosity, assume, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Unsatisfiable

from . import interrupts, report
from .execute import VectorRun
from .outcomes import ExitStatus, Outcome, Status, show
from .protocol import HarnessFault, ProtocolMismatch
from .supervisor import (
    BudgetSpent,
    HarnessOptions,
    Supervisor,
    add_harness_arguments,
    positive_int,
)

PORT: Final = "--port"
AGAINST: Final = "--against"
AGAINST_FAMILY_PREFIX: Final = "against-"
"""``fuzz --against`` writes family ``F``'s findings as family ``fuzz-against-F``."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_harness_arguments(parser, max_restarts=20)
    parser.add_argument(
        AGAINST,
        metavar="COMMAND",
        help="shell command that starts a second harness used as the oracle instead of the "
        "reference (its answers become the expectations; the limits above apply to each "
        "harness separately)",
    )
    parser.add_argument(
        "--examples",
        type=positive_int,
        default=100,
        metavar="N",
        help="transcripts drawn per family (default 100)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="Hypothesis seed; the same seed draws the same transcripts",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("fuzz-found"),
        metavar="DIR",
        help="where a minimal mismatch is written as a vector file (default fuzz-found/)",
    )
    parser.add_argument(
        "--family",
        action="append",
        default=[],
        metavar="FAMILY",
        choices=sorted(strategies.FAMILIES),
        help="fuzz only this strategy family (repeatable; default all)",
    )


class _Abort(BaseException):
    """Ends fuzzing at once (not a finding: Hypothesis must not shrink it)."""


@dataclass
class Side:
    """One harness of a fuzzing run and the option that started it."""

    flag: str
    supervisor: Supervisor

    @property
    def label(self) -> str:
        impl = self.supervisor.hello.get("implementation", {})
        return f"the {self.flag} harness ({impl.get('name', '?')} {impl.get('version', '?')})"


@dataclass(frozen=True)
class Finding:
    """A transcript on which a harness broke or the two sides differ."""

    shape: str
    transcript: dict[str, Any]
    outcome: Outcome
    """Judged on ``side``: its vector is the one written."""
    side: Side
    expectations: str
    """Whose answers the written vector expects."""
    notes: tuple[str, ...] = ()


class Fuzzer:
    def __init__(self, args: argparse.Namespace, port: Side, against: Side | None) -> None:
        self.args = args
        self.port = port
        self.against = against
        self.examples = 0
        self.unlike_reference = 0
        """Transcripts where both sides agree with each other, not with the reference."""

    @property
    def features(self) -> frozenset[str]:
        """The features a drawn transcript may need: those every harness declares."""
        features = self.port.supervisor.features
        if self.against is not None:
            features &= self.against.supervisor.features
        return features

    def _run(self, side: Side, vector: vformat.Vector, family: str) -> tuple[VectorRun, Outcome]:
        """Run one vector on one side; restart that harness after a fault."""
        supervisor = side.supervisor
        connection = supervisor.connection
        if connection is None:
            try:
                connection = supervisor.restart()
            except BudgetSpent as spent:
                raise _Abort(f"{side.flag}: {spent}") from spent
            except (HarnessFault, ProtocolMismatch) as problem:
                raise _Abort(f"restarting {side.label} failed: {problem}") from problem
        run = VectorRun(connection, vector, f"fuzz:{family}")
        outcome = run.run()
        if outcome.fault:
            outcome = outcome.with_stderr(supervisor.discard())
        return run, outcome

    def check(self, family: str, shape: str, transcript: dict[str, Any]) -> Finding | None:
        """Run one transcript; the finding when a harness breaks or the answers differ."""
        vector = make_vector(family, shape, transcript)
        if self.against is None:
            _, outcome = self._run(self.port, vector, family)
            if outcome.status == Status.PASSED:
                return None
            return Finding(shape, transcript, outcome, self.port, "the reference's")
        return self._check_against(self.against, family, shape, transcript, vector)

    def _check_against(
        self,
        against: Side,
        family: str,
        shape: str,
        transcript: dict[str, Any],
        reference: vformat.Vector,
    ) -> Finding | None:
        """The ``--against`` harness answers first; the ``--port`` harness must agree."""
        oracle_run, by_reference = self._run(against, reference, family)
        unanswered: list[dict[str, Any] | None] = [None] * len(reference.steps)
        answers = unanswered if by_reference.fault else oracle_run.answers()
        expectations = f"the answers of {against.label}"
        answered = against_vector(reference, family, answers, expectations)
        own = by_reference if by_reference.fault else oracle_run.judge(answered)
        if own.status != Status.PASSED:  # the oracle broke: no answer to expect
            source = f"the reference's ({AGAINST} gave no answer)"
            written = against_vector(reference, family, unanswered, source)
            faulty = dataclasses.replace(own, vector=written)
            return Finding(shape, transcript, faulty, against, "the reference's")
        port_run, outcome = self._run(self.port, answered, family)
        if outcome.status == Status.PASSED:
            self.unlike_reference += by_reference.status != Status.PASSED
            return None
        notes: tuple[str, ...] = ()
        if outcome.wrong_answer is not None:
            step = outcome.wrong_answer.step
            notes = (
                f"expected = the {AGAINST} harness's answer, got = the {PORT} harness's answer",
                reference_verdict(
                    step, reference.steps[step].expect, answers[step], port_run.answers()[step]
                ),
            )
        return Finding(shape, transcript, outcome, self.port, expectations, notes)

    def fuzz_family(self, family: str) -> Finding | None:
        """The minimal finding of a family, or None."""
        found: list[Finding] = []

        @settings(
            max_examples=self.args.examples,
            database=None,
            deadline=None,
            phases=[Phase.generate, Phase.shrink],
            suppress_health_check=list(HealthCheck),
            derandomize=False,
            print_blob=False,
            report_multiple_bugs=False,
            verbosity=Verbosity.quiet,
        )
        @hypothesis_seed(self.args.seed)
        @given(strategies.transcripts(family, with_shape=True))
        def differential(pair: tuple[str, dict[str, Any]]) -> None:
            shape, transcript = pair
            assume(set(build.features_of_transcript(transcript)) <= self.features)
            self.examples += 1
            finding = self.check(family, shape, transcript)
            if finding is not None:
                found.append(finding)  # the last one is the minimal
                raise AssertionError(finding.outcome.summary())

        try:
            with seed_only():
                differential()
        except AssertionError:
            return found[-1]
        except Unsatisfiable as error:  # every draw was filtered: say so, find nothing
            print(f"{family}: no verdict: {error}", file=sys.stderr)
        except Exception:  # e.g. Flaky: a finding that did not repeat is still a finding
            if found:
                return found[-1]
            raise  # a bug of the fuzzer itself: never reported as "no mismatch"
        return None


def reference_verdict(
    step: int,
    reference: dict[str, Any],
    against: dict[str, Any] | None,
    port: dict[str, Any] | None,
) -> str:
    """Which side the reference agrees with at the first differing step.

    Each argument is that side's answer in the form of an expectation (None: no answer).
    """
    if against is not None and not vformat.compare(reference, against):
        side = f"the {AGAINST} harness"
    elif port is not None and not vformat.compare(reference, port):
        side = f"the {PORT} harness"
    else:
        return f"at step {step} the reference agrees with neither: it expects {show(reference)}"
    return f"at step {step} the reference agrees with {side}"


def against_vector(
    reference: vformat.Vector,
    family: str,
    answers: list[dict[str, Any] | None],
    oracle: str,
) -> vformat.Vector:
    """``reference`` expecting the ``--against`` harness's ``answers`` instead.

    A step without an answer keeps the reference's expectation (the run is
    then judged errored on that side; see :meth:`~.execute.VectorRun.judge`).
    """
    steps = [
        step if answer is None else dataclasses.replace(step, expect=answer)
        for step, answer in zip(reference.steps, answers, strict=True)
    ]
    _, rest = reference.id.split("/", 1)
    return dataclasses.replace(
        reference,
        id=f"fuzz-{AGAINST_FAMILY_PREFIX}{family}/{rest}",
        description=f"{reference.description}; expectations: {oracle}",
        tags=[*reference.tags, "fuzz-against"],
        steps=steps,
    )


def make_vector(family: str, shape: str, transcript: dict[str, Any]) -> vformat.Vector:
    spec = strategies.FAMILIES[family]
    return build.build_vector(
        f"fuzz-{family}/{shape}-{build.content_hash(transcript)}",
        f"found by differential fuzzing: {spec.description} ({shape})",
        spec.spec,
        [family, shape, "fuzz"],
        transcript,
    )


def write_vector(
    out: Path, family: str, vector: vformat.Vector, description: str | None = None
) -> Path:
    """Add ``vector`` to ``<out>/curated/fuzz-<family>.json`` (created if needed).

    ``description`` (the file's, default: a port disagreed with the reference)
    is followed by `` (<family>)``. Raises
    :class:`~doomloop_kit.vectorset.files.VectorFormatError`, writing nothing,
    when the file would not be valid.
    """
    description = description or "minimal transcripts where a port disagreed with the reference"
    path = out / "curated" / f"fuzz-{family}.json"
    if path.exists():
        existing = vformat.load_vector_file(path)
        vectors = [v for v in existing.vectors if v.id != vector.id] + [vector]
    else:
        vectors = [vector]
    document = vformat.VectorFile(
        "curated",
        f"fuzz-{family}",
        f"{description} ({family})",
        vectors,
    ).to_json()
    vformat.validate_vector_file_data(document, path)
    vformat.write_json_atomic(path, document)
    return path


def _start(flag: str, command: str, args: argparse.Namespace, warn: Callable[[str], None]) -> Side:
    """A started harness; raises what :meth:`~.supervisor.Supervisor.start` raises."""
    options = dataclasses.replace(HarnessOptions.from_args(args), command=command)
    side = Side(flag, Supervisor(options, vformat.feature_vocabulary(), warn))
    side.supervisor.start()
    return side


def _features_left_out(port: Side, against: Side) -> str:
    """The features only one side declares: transcripts needing them are not drawn."""
    mine, theirs = port.supervisor.features, against.supervisor.features
    parts = [
        f"{', '.join(sorted(only))} ({flag} only)"
        for only, flag in ((mine - theirs, PORT), (theirs - mine, AGAINST))
        if only
    ]
    return "; ".join(parts) if parts else "none"


def run(args: argparse.Namespace) -> int:
    out = report.Console(sys.stdout, "lines", verbose=False)
    try:
        writing.check_folder(args.out)
    except writing.OutputError as error:
        out.note(f"error: --out {error}")
        return ExitStatus.USAGE
    sides: list[Side] = []
    differential = args.against is not None
    for flag, command in ((PORT, args.port), (AGAINST, args.against)):
        if command is None:
            continue

        def warn(text: str, flag: str = flag) -> None:
            out.note(f"{flag}: {text}" if differential else text)

        try:
            sides.append(_start(flag, command, args, warn))
        except (HarnessFault, ProtocolMismatch) as problem:
            which = f"the {flag} harness" if differential else "the harness"
            out.note(f"error: {which} is unusable: {problem}")
            for side in sides:
                side.supervisor.stop()
            return ExitStatus.ERRORED
    port, against = sides[0], (sides[1] if differential else None)
    fuzzer = Fuzzer(args, port, against)
    families = args.family or list(strategies.FAMILIES)
    try:
        if against is None:
            impl = port.supervisor.hello["implementation"]
            out.note(
                f"fuzzing {impl['name']} {impl['version']} ({impl['language']}): "
                f"{args.examples} transcripts per family, seed {args.seed}"
            )
        else:
            out.note(
                f"fuzzing {port.label} against {against.label}: {args.examples} transcripts "
                f"per family, seed {args.seed}; the {AGAINST} harness's answers are the "
                "expectations"
            )
            out.note(
                f"features left out (one side only, not drawn): {_features_left_out(port, against)}"
            )
        for family in families:
            before = fuzzer.examples
            finding = fuzzer.fuzz_family(family)
            if finding is None:
                out.note(f"{family}: {fuzzer.examples - before} transcripts agree")
                continue
            _report(out, args, family, finding, differential)
            return ExitStatus.FAILED
        out.note(f"no mismatch in {fuzzer.examples} transcripts")
        if against is not None and fuzzer.unlike_reference:
            out.note(
                f"in {fuzzer.unlike_reference} of them both harnesses differ from the "
                f"reference the same way (`conformance fuzz --port` on either shows how)"
            )
        return ExitStatus.PASSED
    except _Abort as abort:
        out.note(f"error: fuzzing stopped: {abort}")
        return ExitStatus.ERRORED
    finally:
        with interrupts.held():  # a second Ctrl-C must not leave a harness behind
            for side in sides:
                side.supervisor.stop()


def _report(
    out: report.Console, args: argparse.Namespace, family: str, finding: Finding, against: bool
) -> None:
    """Show the minimal finding of ``family`` and write it as a vector file."""
    outcome, transcript = finding.outcome, finding.transcript
    if not against:
        headline = "MISMATCH"
    elif outcome.status == Status.FAILED:
        headline = f"MISMATCH between the {PORT} and {AGAINST} harnesses"
    else:
        headline = f"{finding.side.label} broke"
    out.note(f"{family}: {headline}; minimal transcript after shrinking:")
    for name in ("option", "initialState"):
        if name in transcript:
            out.note(f"  {name}: {json.dumps(transcript[name], ensure_ascii=True)}")
    for index, step in enumerate(transcript["steps"]):
        out.note(f"  step {index}: {json.dumps(step, ensure_ascii=True)}")
    if against and outcome.status != Status.FAILED:
        out.note(f"{finding.side.flag}: {outcome.summary()}")
    out.vector(outcome, Counter())
    for note in finding.notes:
        out.note(note)
    name, description = family, None
    if against:
        name = f"{AGAINST_FAMILY_PREFIX}{family}"
        description = (
            "minimal transcripts where two harnesses differed; each vector's description "
            "says whose answers it expects"
        )
    try:
        path = write_vector(args.out, name, outcome.vector, description)
    except vformat.VectorFormatError as error:  # a bad file there, or an invalid vector
        out.note(f"error: the minimal transcript above was not written: {error}")
        return
    out.note(
        f"wrote {path} (vector {outcome.vector.id}); expectations are "
        f"{finding.expectations}, ready to commit"
    )
