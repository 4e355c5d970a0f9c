"""``doomloop-kit conformance fuzz``: differential fuzzing of a port against the reference.

Draws transcripts live from the Hypothesis strategies of
:mod:`doomloop_kit.generators.strategies`, turns each into a vector whose
expectations come from the reference (:func:`~doomloop_kit.generators.build.build_vector`),
and runs it through the port's harness exactly as ``conformance run`` would.
On the first mismatch Hypothesis shrinks the transcript; the minimal one is
printed with the runner's failure report and written as a ready-to-commit
vector file ``<out>/curated/fuzz-<family>.json``. With the same ``--seed``,
port and code, a run draws and shrinks the same transcripts.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from doomloop_kit.generators import build, strategies
from doomloop_kit.vectorset import files as vformat
from hypothesis import HealthCheck, Phase, Verbosity, assume, given, settings
from hypothesis import seed as hypothesis_seed

from . import report
from .execute import run_vector
from .outcomes import ExitStatus, Outcome, Status
from .protocol import HarnessFault, ProtocolMismatch
from .supervisor import (
    BudgetSpent,
    HarnessOptions,
    Supervisor,
    add_harness_arguments,
    positive_int,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_harness_arguments(parser, max_restarts=20)
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


class Fuzzer:
    def __init__(self, args: argparse.Namespace, supervisor: Supervisor) -> None:
        self.args = args
        self.supervisor = supervisor
        self.examples = 0

    def check(self, family: str, shape: str, transcript: dict[str, Any]) -> Outcome:
        """Run one transcript through the port; restart the harness after a fault."""
        vector = make_vector(family, shape, transcript)
        connection = self.supervisor.connection
        if connection is None:
            try:
                connection = self.supervisor.restart()
            except BudgetSpent as spent:
                raise _Abort(str(spent)) from spent
            except (HarnessFault, ProtocolMismatch) as problem:
                raise _Abort(f"restarting the harness failed: {problem}") from problem
        outcome = run_vector(connection, vector, f"fuzz:{family}")
        if outcome.fault:
            outcome = outcome.with_stderr(self.supervisor.discard())
        return outcome

    def fuzz_family(self, family: str) -> tuple[str, dict[str, Any], Outcome] | None:
        """The minimal mismatching (shape, transcript, outcome) of a family, or None."""
        found: list[tuple[str, dict[str, Any], Outcome]] = []

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
            assume(set(build.features_of_transcript(transcript)) <= self.supervisor.features)
            self.examples += 1
            outcome = self.check(family, shape, transcript)
            if outcome.status != Status.PASSED:
                found.append((shape, transcript, outcome))  # the last one is the minimal
                raise AssertionError(outcome.summary())

        try:
            differential()
        except AssertionError:
            return found[-1]
        except Exception as error:  # Hypothesis gave up (e.g. every draw was filtered)
            if found:
                return found[-1]
            print(f"{family}: no verdict: {type(error).__name__}: {error}", file=sys.stderr)
        return None


def make_vector(family: str, shape: str, transcript: dict[str, Any]) -> vformat.Vector:
    spec = strategies.FAMILIES[family]
    return build.build_vector(
        f"fuzz-{family}/{shape}-{build.content_hash(transcript)}",
        f"found by differential fuzzing: {spec.description} ({shape})",
        spec.spec,
        [family, shape, "fuzz"],
        transcript,
    )


def write_vector(out: Path, family: str, vector: vformat.Vector) -> Path:
    """Add ``vector`` to ``<out>/curated/fuzz-<family>.json`` (created if needed)."""
    path = out / "curated" / f"fuzz-{family}.json"
    if path.exists():
        existing = vformat.load_vector_file(path)
        vectors = [v for v in existing.vectors if v.id != vector.id] + [vector]
    else:
        vectors = [vector]
    document = vformat.VectorFile(
        "curated",
        f"fuzz-{family}",
        f"minimal transcripts where a port disagreed with the reference ({family})",
        vectors,
    ).to_json()
    vformat.validate_vector_file_data(document, path)
    vformat.write_json_atomic(path, document)
    return path


def run(args: argparse.Namespace) -> int:
    out = report.Console(sys.stdout, "lines", verbose=False)
    try:
        report.check_output_dir(args.out, "--out")
    except report.OutputPathError as error:
        out.note(f"error: {error}")
        return ExitStatus.USAGE
    supervisor = Supervisor(HarnessOptions.from_args(args), vformat.feature_vocabulary(), out.note)
    try:
        supervisor.start()
    except (HarnessFault, ProtocolMismatch) as problem:
        out.note(f"error: the harness is unusable: {problem}")
        return ExitStatus.ERRORED
    fuzzer = Fuzzer(args, supervisor)
    families = args.family or list(strategies.FAMILIES)
    try:
        impl = supervisor.hello["implementation"]
        out.note(
            f"fuzzing {impl['name']} {impl['version']} ({impl['language']}): "
            f"{args.examples} transcripts per family, seed {args.seed}"
        )
        for family in families:
            before = fuzzer.examples
            finding = fuzzer.fuzz_family(family)
            if finding is None:
                out.note(f"{family}: {fuzzer.examples - before} transcripts agree")
                continue
            _, transcript, outcome = finding
            out.note(f"{family}: MISMATCH; minimal transcript after shrinking:")
            for name in ("option", "initialState"):
                if name in transcript:
                    out.note(f"  {name}: {json.dumps(transcript[name], ensure_ascii=True)}")
            for index, step in enumerate(transcript["steps"]):
                out.note(f"  step {index}: {json.dumps(step, ensure_ascii=True)}")
            out.vector(outcome, Counter())
            path = write_vector(args.out, family, outcome.vector)
            out.note(
                f"wrote {path} (vector {outcome.vector.id}); expectations are the "
                "reference's, ready to commit"
            )
            return ExitStatus.FAILED
        out.note(f"no mismatch in {fuzzer.examples} transcripts")
        return ExitStatus.PASSED
    except _Abort as abort:
        out.note(f"error: fuzzing stopped: {abort}")
        return ExitStatus.ERRORED
    finally:
        supervisor.stop()
