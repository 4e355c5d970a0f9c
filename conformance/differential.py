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

Engine families (:mod:`doomloop_kit.generators.fuzz_families`) draw whole
scenarios, run by ``runScenario`` and judged by the transcript comparison of
engine vectors (the partial order of ENG-139). A scenario one of whose runs
leaves the domain (ENG-151) is compared up to that run
(:mod:`.engine_domain`); an ``--against`` answer becomes an expectation with
an order of its own (:func:`~doomloop_kit.vectorset.event_order.order_like`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from doomloop_kit.generators import build, fuzz_families
from doomloop_kit.generators.curated.engine.facts import FactFailure, check_fact
from doomloop_kit.generators.reproducible import seed_only
from doomloop_kit.vectorset.event_order import order_like
from doomloop_kit.vectorset.expectations import ENGINE_ORDER
from doomloop_kit.vectorset.files import (
    ABSENT,
    Step,
    Vector,
    VectorFile,
    compare,
    load_vector_file,
    validate_vector_file_data,
    write_json_atomic,
)
from doomloop_kit.vectorset.transcripts import compare_transcripts
from doomloop_kit.vectorset.vocabulary import ENGINE_OP
from hypothesis import HealthCheck, Phase, Verbosity, assume, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Unsatisfiable

from .engine_domain import in_domain_prefix
from .execute import VectorRun
from .outcomes import Outcome, Status, WrongAnswer, show
from .protocol import HarnessFault, ProtocolMismatch
from .supervisor import BudgetSpent, Supervisor
from .terminal import shown

PORT: Final = "--port"
AGAINST: Final = "--against"
AGAINST_FAMILY_PREFIX: Final = "against-"
"""``fuzz --against`` writes family ``F``'s findings as family ``fuzz-against-F``."""


class Abort(BaseException):
    """Ends fuzzing at once (not a finding: Hypothesis must not shrink it)."""


class ReferenceFailed(Exception):
    """The reference raised on a drawn transcript: a bug of the kit, never of a port.

    Raised inside the Hypothesis test, so that Hypothesis shrinks it like a finding.
    """

    def __init__(self, transcript: dict[str, Any], error: Exception) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.transcript = transcript
        self.error = error


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
        self.outside_domain = 0
        """Engine scenarios with a run outside the domain, compared up to that run only."""
        self.reference_failures = 0
        """Engine scenarios the reference failed on, compared between the two harnesses."""

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

    def answer(self, side: Side, family: str, transcript: dict[str, Any]) -> dict[str, Any] | None:
        """One side's answer to an engine transcript, whatever the reference makes of it,
        in the form of an expectation (None: no answer)."""
        run, _ = self._run(side, _stand_in_vector(family, "answer", transcript), family)
        return run.answers()[0]

    def prepare(
        self, family: str, shape: str, transcript: dict[str, Any]
    ) -> tuple[dict[str, Any], Vector] | None:
        """The transcript to run and its vector, expectations from the reference; an
        engine scenario with a run outside the domain is cut before that run (None when
        its first run is outside). Raises :class:`ReferenceFailed`."""
        vector = _reference_vector(family, shape, transcript)
        if not vector.is_engine or vector.steps[0].expects_error is None:
            return transcript, vector
        prefix = in_domain_prefix(fuzz_families.scenario_of(transcript))
        if not prefix.dropped:
            return transcript, vector  # malformed (ENG-23): both sides must refuse it
        self.outside_domain += 1
        if prefix.scenario is None:
            return None
        cut = dict(build.engine_transcript(prefix.scenario))
        return cut, _reference_vector(family, shape, cut)

    def check(self, family: str, shape: str, transcript: dict[str, Any]) -> Finding | None:
        """Run one transcript; the finding when a harness breaks or the answers differ.
        Raises :class:`ReferenceFailed`."""
        try:
            prepared = self.prepare(family, shape, transcript)
        except ReferenceFailed as failed:
            if self.against is None or not fuzz_families.is_engine(family):
                raise
            # the --against harness is the oracle: the two harnesses are still compared
            self.reference_failures += 1
            stand_in = _stand_in_vector(family, shape, transcript)
            return self._check_against(self.against, family, shape, transcript, stand_in, failed)
        if prepared is None:
            return None
        return self.check_prepared(family, shape, *prepared)

    def check_prepared(
        self, family: str, shape: str, transcript: dict[str, Any], vector: Vector
    ) -> Finding | None:
        """:meth:`check` of a transcript :meth:`prepare` gave, with its vector."""
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
        failed: ReferenceFailed | None = None,
    ) -> Finding | None:
        """The ``--against`` harness answers first; the ``--port`` harness must agree.
        ``failed``: the reference failed, ``reference`` is a stand-in."""
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
            self.unlike_reference += failed is None and by_reference.status != Status.PASSED
            return None
        notes: tuple[str, ...] = ()
        if outcome.wrong_answer is not None:
            step = outcome.wrong_answer.step
            verdict = (
                reference_verdict(
                    step, reference.steps[step].expect, answers[step], port_run.answers()[step]
                )
                if failed is None
                else f"the reference failed on this transcript ({failed})"
            )
            notes = (
                f"expected = the {AGAINST} harness's answer, got = the {PORT} harness's answer",
                verdict,
            )
        return Finding(shape, transcript, outcome, self.port, expectations, notes)

    def fuzz_family(self, family: str) -> Finding | None:
        """The minimal finding of a family, or None."""
        found: list[Finding] = []

        @drawing(self.args.examples)
        @hypothesis_seed(self.args.seed)
        @given(fuzz_families.draws(family))
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
        except ReferenceFailed:
            raise  # shrunk by Hypothesis: the minimal transcript the reference fails on
        except Exception:  # e.g. Flaky: a finding that did not repeat is still a finding
            if found:
                return found[-1]
            raise  # a bug of the fuzzer itself: never reported as "no mismatch"
        return None


def drawing(examples: int) -> settings:
    """The Hypothesis settings fuzzing draws with: ``examples`` draws, shrinking the first
    failure only, no example database, no deadline, no health check, quiet (the caller
    seeds the draw)."""
    return settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
        derandomize=False,
        print_blob=False,
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
    )


def reference_verdict(
    step: int,
    reference: dict[str, Any],
    against: dict[str, Any] | None,
    port: dict[str, Any] | None,
) -> str:
    """Which side the reference agrees with at the first differing step.

    Each argument is that side's answer in the form of an expectation (None: no answer).
    """
    if against is not None and _agrees(reference, against):
        side = f"the {AGAINST} harness"
    elif port is not None and _agrees(reference, port):
        side = f"the {PORT} harness"
    else:
        return f"at step {step} the reference agrees with neither: it expects {show(reference)}"
    return f"at step {step} the reference agrees with {side}"


def _agrees(reference: dict[str, Any], answer: dict[str, Any]) -> bool:
    """Whether an answer meets the reference's expectation: an engine transcript by its
    partial order (the reference's ``order``), anything else by the comparison rule."""
    if ENGINE_ORDER in reference and "result" in reference and "result" in answer:
        return not compare_transcripts(
            reference["result"], answer["result"], reference[ENGINE_ORDER]
        )
    return not compare(reference, answer)


def answer_expectation(step: Step, answer: dict[str, Any]) -> dict[str, Any]:
    """An answer to ``step`` as its expectation: an engine transcript gets an order of its
    own, borrowed from the reference's where its entries are the reference's (ENG-139)."""
    if step.op != ENGINE_OP or not isinstance(answer.get("result"), dict):
        return answer
    runs = answer["result"].get("runs")
    expected = step.expect.get("result")
    expected_runs = expected.get("runs", []) if isinstance(expected, dict) else []
    order = order_like(
        runs if isinstance(runs, list) else [], expected_runs, step.expect.get(ENGINE_ORDER, [])
    )
    return {**answer, ENGINE_ORDER: order}


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
        step
        if answer is None
        else dataclasses.replace(step, expect=answer_expectation(step, answer))
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


def _reference_vector(family: str, shape: str, transcript: dict[str, Any]) -> Vector:
    """:func:`make_vector`, a failure of the reference raised as :class:`ReferenceFailed`."""
    try:
        return make_vector(family, shape, transcript)
    except Exception as error:
        raise ReferenceFailed(transcript, error) from error


def _stand_in_vector(family: str, shape: str, transcript: dict[str, Any]) -> Vector:
    """The engine vector of a scenario the reference failed on, expecting ``bad-scenario``
    in its place: ``fuzz --against`` replaces the expectation by the oracle's answer."""
    spec = fuzz_families.FAMILIES[family]
    return Vector.engine(
        f"fuzz-{family}/{shape}-{build.content_hash(transcript)}",
        f"found by differential fuzzing: {spec.description} ({shape}); the reference failed",
        list(spec.spec),
        [family, shape, "fuzz"],
        build.features_of_transcript(transcript),
        fuzz_families.scenario_of(transcript),
        {"error": "bad-scenario"},
    )


_DIFFERENCE: Final = re.compile(r"^run (\d+), (?:dispatch (\d+), )?(/.*)?$")


def with_witness(vector: Vector, wrong: WrongAnswer | None) -> Vector:
    """An engine vector with a fact (a written curated engine vector cites one): the
    value its expectation holds where the other side first differed (kind ``at``), else
    its last run's end, or for an expected ``bad-scenario`` the rejection (kind
    ``bad-scenario``). Only a fact that holds on the expectation is written. A monitor
    vector is returned as it is."""
    if not vector.is_engine:
        return vector
    expect = vector.steps[0].expect
    result = expect.get("result")
    runs = result.get("runs") if isinstance(result, dict) else None
    if not isinstance(result, dict) or not isinstance(runs, list) or not runs:
        return dataclasses.replace(vector, facts=({"kind": "bad-scenario", "names": ""},))
    last = runs[-1] if isinstance(runs[-1], dict) else {}
    candidates = [{"kind": "at", "run": len(runs) - 1, "at": "/end", "equals": last.get("end")}]
    found = None if wrong is None else _DIFFERENCE.match(wrong.path)
    if wrong is not None and found is not None:
        run, dispatch, pointer = found.groups()
        at = (pointer or "") if dispatch is None else f"/dispatches/{dispatch}{pointer or ''}"
        pinned = {"absent": True} if wrong.expected is ABSENT else {"equals": wrong.expected}
        candidates.insert(0, {"kind": "at", "run": int(run), "at": at, **pinned})
    for fact in candidates:
        try:
            check_fact({**result, ENGINE_ORDER: expect.get(ENGINE_ORDER, [])}, fact)
        except (FactFailure, LookupError, TypeError, ValueError):
            continue
        return dataclasses.replace(vector, facts=(fact,))
    return vector


def make_vector(family: str, shape: str, transcript: dict[str, Any]) -> Vector:
    spec = fuzz_families.FAMILIES[family]
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
