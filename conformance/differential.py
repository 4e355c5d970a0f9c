"""Differential fuzzing: transcripts drawn live, run on a port and judged.

The :class:`Fuzzer` draws transcripts from the Hypothesis strategies of
:mod:`doomloop_kit.generators.strategies`, turns each into a vector whose
expectations come from the reference
(:func:`~doomloop_kit.generators.build.build_vector`), and runs it through
the port's harness exactly as ``conformance run`` would; with a second
harness (``--against``) that harness's answers are the expectations
instead. On the first difference Hypothesis shrinks the transcript; the
minimal one is a :class:`Finding`, written as a vector file by
:func:`write_vector`. The command is :mod:`.fuzz`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from doomloop_kit.generators import build, strategies
from doomloop_kit.generators.reproducible import seed_only
from doomloop_kit.vectorset.files import (
    Vector,
    VectorFile,
    compare,
    load_vector_file,
    validate_vector_file_data,
    write_json_atomic,
)
from hypothesis import HealthCheck, Phase, Verbosity, assume, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Unsatisfiable

from .execute import VectorRun
from .outcomes import Outcome, Status, show
from .protocol import HarnessFault, ProtocolMismatch
from .supervisor import BudgetSpent, Supervisor
from .terminal import shown

PORT: Final = "--port"
AGAINST: Final = "--against"
AGAINST_FAMILY_PREFIX: Final = "against-"
"""``fuzz --against`` writes family ``F``'s findings as family ``fuzz-against-F``."""


class Abort(BaseException):
    """Ends fuzzing at once (not a finding: Hypothesis must not shrink it)."""


@dataclass
class Side:
    """One harness of a fuzzing run and the option that started it."""

    flag: str
    supervisor: Supervisor

    @property
    def label(self) -> str:
        hello = self.supervisor.hello
        impl: Mapping[str, object] = {} if hello is None else hello["implementation"]
        name = shown(f"{impl.get('name', '?')} {impl.get('version', '?')}")
        return f"the {self.flag} harness ({name})"


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
        self.drawn: Callable[[], None] = lambda: None
        """Called for each transcript run (the command's progress bar)."""
        self.unlike_reference = 0
        """Transcripts where both sides agree with each other, not with the reference."""

    @property
    def features(self) -> frozenset[str]:
        """The features a drawn transcript may need: those every harness declares."""
        features = self.port.supervisor.features
        if self.against is not None:
            features &= self.against.supervisor.features
        return features

    def _run(self, side: Side, vector: Vector, family: str) -> tuple[VectorRun, Outcome]:
        """Run one vector on one side; restart that harness after a fault."""
        supervisor = side.supervisor
        connection = supervisor.connection
        if connection is None:
            try:
                connection = supervisor.restart()
            except BudgetSpent as spent:
                raise Abort(f"{side.flag}: {spent}") from spent
            except (HarnessFault, ProtocolMismatch) as problem:
                raise Abort(f"restarting {side.label} failed: {problem}") from problem
        run = VectorRun(connection, vector, f"fuzz:{family}")
        outcome = run.run()
        if outcome.fault:
            outcome = outcome.with_stderr(supervisor.discard())
        if outcome.error is not None and outcome.error.cause == "timeout":
            # a hang is the harness's fault, not a finding: shrinking would wait out the
            # timeout on every smaller transcript, and no vector could pin a hang
            steps = json.dumps(vector.transcript(), ensure_ascii=True)
            raise Abort(
                f"{side.label} hung, a harness fault (not a mismatch): "
                f"{shown(outcome.summary())}; the transcript it hung on: {steps}"
            )
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
        reference: Vector,
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
            self.drawn()
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
    if against is not None and not compare(reference, against):
        side = f"the {AGAINST} harness"
    elif port is not None and not compare(reference, port):
        side = f"the {PORT} harness"
    else:
        return f"at step {step} the reference agrees with neither: it expects {show(reference)}"
    return f"at step {step} the reference agrees with {side}"


def against_vector(
    reference: Vector,
    family: str,
    answers: list[dict[str, Any] | None],
    oracle: str,
) -> Vector:
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


def make_vector(family: str, shape: str, transcript: dict[str, Any]) -> Vector:
    spec = strategies.FAMILIES[family]
    return build.build_vector(
        f"fuzz-{family}/{shape}-{build.content_hash(transcript)}",
        f"found by differential fuzzing: {spec.description} ({shape})",
        spec.spec,
        [family, shape, "fuzz"],
        transcript,
    )


def write_vector(out: Path, family: str, vector: Vector, description: str | None = None) -> Path:
    """Add ``vector`` to ``<out>/curated/fuzz-<family>.json`` (created if needed).

    ``description`` (the file's, default: a port disagreed with the reference)
    is followed by `` (<family>)``. Raises
    :class:`~doomloop_kit.vectorset.files.VectorFormatError`, writing nothing,
    when the file would not be valid.
    """
    description = description or "minimal transcripts where a port disagreed with the reference"
    path = out / "curated" / f"fuzz-{family}.json"
    if path.exists():
        existing = load_vector_file(path)
        vectors = [v for v in existing.vectors if v.id != vector.id] + [vector]
    else:
        vectors = [vector]
    document = VectorFile(
        "curated",
        f"fuzz-{family}",
        f"{description} ({family})",
        vectors,
    ).to_json()
    validate_vector_file_data(document, path)
    write_json_atomic(path, document)
    return path
