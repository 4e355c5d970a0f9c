"""``doomloop-kit conformance fuzz``: differential fuzzing of a port against the reference.

Draws transcripts live from the Hypothesis strategies and runs each on the
port's harness as ``conformance run`` would (:mod:`.differential`, the
fuzzer itself). On the first mismatch Hypothesis shrinks the transcript; the
minimal one is printed with the runner's failure report and written as a
ready-to-commit vector file ``<out>/curated/fuzz-<family>.json``. With the
same ``--seed``, port and code, a run draws and shrinks the same transcripts.

With ``--against COMMAND`` the oracle is a second harness instead (another
port, or the SDK's own module behind the TypeScript harness): each transcript
runs on the ``--against`` harness first, its answers become the expectations,
and the ``--port`` harness is judged against them. Only transcripts whose
features both harnesses declare are drawn. The vector written on a difference
(``<out>/curated/fuzz-against-<family>.json``) holds the ``--against``
harness's answers, and the output says whether the reference agrees with
either side at the first differing step. A fault is named with its side.

Engine families draw whole scenarios (``runScenario``); without ``--family``
they are drawn after the monitor families when every harness declares
``engine``. A scenario with a run outside the domain (ENG-151) is compared
up to that run, and the last line counts them. When the reference itself
fails on a drawn transcript, the minimal one is printed and the command
ends errored: that is a bug of the kit.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from doomloop_kit.generators import fuzz_families
from doomloop_kit.vectorset import writing
from doomloop_kit.vectorset.files import VectorFormatError, feature_vocabulary
from doomloop_kit.vectorset.progress import Progress, add_progress_argument
from doomloop_kit.vectorset.vocabulary import ENGINE_FEATURE

from . import interrupts, report
from .differential import (
    AGAINST,
    AGAINST_FAMILY_PREFIX,
    PORT,
    Abort,
    Finding,
    Fuzzer,
    ReferenceFailed,
    Side,
    with_witness,
    write_vector,
)
from .outcomes import ExitStatus, Status
from .protocol import HarnessFault, ProtocolMismatch
from .supervisor import HarnessOptions, Supervisor, add_harness_arguments, positive_int
from .terminal import shown


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
        help="fuzz only this strategy family, or the families a glob matches ('engine-*': "
        "every engine family) (repeatable; default: every monitor family, and every engine "
        "family when every harness declares the feature engine)",
    )
    add_progress_argument(parser)


def _start(flag: str, command: str, args: argparse.Namespace, warn: Callable[[str], None]) -> Side:
    """A started harness; raises what :meth:`~.supervisor.Supervisor.start` raises."""
    options = dataclasses.replace(HarnessOptions.from_args(args), command=command)
    side = Side(flag, Supervisor(options, feature_vocabulary(), warn))
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
    try:
        chosen = fuzz_families.matching(args.family)
    except ValueError as error:
        out.note(f"error: --family: {error}")
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
            out.note(f"error: {which} is unusable: {shown(str(problem))}")
            for side in sides:
                side.supervisor.stop()
            return ExitStatus.ERRORED
    port, against = sides[0], (sides[1] if differential else None)
    fuzzer = Fuzzer(args, port, against)
    families = chosen if args.family else _default_families(fuzzer)
    try:
        if against is None:
            hello = port.supervisor.hello
            assert hello is not None  # started
            impl = hello["implementation"]
            out.note(
                f"fuzzing {shown(impl['name'])} {shown(impl['version'])} "
                f"({shown(impl['language'])}): {args.examples} transcripts per family, "
                f"seed {args.seed}"
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
        with Progress(
            args.examples * len(families), what="fuzzing", unit="transcripts", mode=args.progress
        ) as bar:
            out.progress, fuzzer.drawn = bar, bar.advance  # lines print above the bar
            for done, family in enumerate(families, start=1):
                before = fuzzer.examples
                finding = fuzzer.fuzz_family(family)
                if finding is not None:
                    out.progress = None
                    bar.close()
                    _report(out, args, family, finding, differential)
                    # a wrong answer fails the port; a harness that broke is an error, as in `run`
                    wrong = finding.outcome.status == Status.FAILED
                    return ExitStatus.FAILED if wrong else ExitStatus.ERRORED
                out.note(f"{family}: {fuzzer.examples - before} transcripts agree")
                bar.advance(max(0, args.examples * done - fuzzer.examples))  # drew fewer
            out.progress = None
        out.note(f"no mismatch in {fuzzer.examples} transcripts")
        if fuzzer.reference_failures:
            out.note(
                f"the reference failed on {fuzzer.reference_failures} of them (compared between "
                f"the two harnesses only; `conformance fuzz --port` on either shows one)"
            )
        if fuzzer.outside_domain:
            out.note(
                f"{fuzzer.outside_domain} engine scenarios had a run outside the domain "
                "(ENG-151): compared up to that run"
            )
        if against is not None and fuzzer.unlike_reference:
            out.note(
                f"in {fuzzer.unlike_reference} of them both harnesses differ from the "
                f"reference the same way (`conformance fuzz --port` on either shows how)"
            )
        return ExitStatus.PASSED
    except Abort as abort:
        out.note(f"error: fuzzing stopped: {abort}")
        return ExitStatus.ERRORED
    except ReferenceFailed as failed:
        out.progress = None  # the bar closed with its block
        out.note(f"error: the reference failed ({failed}) on this minimal transcript:")
        out.note(f"  {json.dumps(failed.transcript, ensure_ascii=True)}")
        out.note("this is a bug of the kit: please report it with the transcript above")
        return ExitStatus.ERRORED
    finally:
        with interrupts.held():  # a second Ctrl-C must not leave a harness behind
            for side in sides:
                side.supervisor.stop()


def _default_families(fuzzer: Fuzzer) -> list[str]:
    """Every monitor family, then every engine family if every harness declares engine."""
    engine = ENGINE_FEATURE in fuzzer.features
    return [f for f in fuzz_families.FAMILIES if engine or not fuzz_families.is_engine(f)]


def _report(
    out: report.Console, args: argparse.Namespace, family: str, finding: Finding, against: bool
) -> None:
    """Show the minimal finding of ``family`` and write it as a vector file."""
    outcome, transcript = finding.outcome, finding.transcript
    if not against:
        headline = "MISMATCH" if outcome.status == Status.FAILED else "the harness broke"
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
        out.note(f"{finding.side.flag}: {shown(outcome.summary())}")
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
        path = write_vector(
            args.out, name, with_witness(outcome.vector, outcome.wrong_answer), description
        )
    except VectorFormatError as error:  # a bad file there, or an invalid vector
        out.note(f"error: the minimal transcript above was not written: {error}")
        return
    out.note(
        f"wrote {path} (vector {outcome.vector.id}); expectations are "
        f"{finding.expectations}, ready to commit"
    )
