"""``--port COMMAND``: the same replay through a port's harness (spec/protocol.md).

The replay's monitor operations (a recording :class:`~.session.Session`) become
one vector whose expectations the reference computes
(:func:`~doomloop_kit.generators.build.build_vector`); the conformance
runner sends it to the harness (:func:`~doomloop_kit.conformance.execute.run_vector`).
On a difference, the replay up to the end of the round (or text check) where
the port first differs is written as a ready-to-commit vector by the fuzz
command's writer, into ``<out>/curated/fuzz-replay.json``.
"""

from __future__ import annotations

import argparse
import re
from typing import Any, Final, TextIO

from doomloop_kit.conformance.differential import write_vector
from doomloop_kit.conformance.execute import run_vector
from doomloop_kit.conformance.outcomes import Outcome, Status
from doomloop_kit.conformance.protocol import Connection, HarnessFault, ProtocolMismatch
from doomloop_kit.generators import build
from doomloop_kit.jsvalue import wire
from doomloop_kit.vectorset.files import Vector

from .options import ReplayOptions
from .session import Session

FAMILY: Final = "replay"
SPEC: Final = ("ENG-01", "ENG-02", "ENG-04", "MON-07", "MON-14", "MON-41")
EXIT_OK, EXIT_DIFFERS, EXIT_UNUSABLE = 0, 1, 2


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "log"


def make_vector(
    args: argparse.Namespace, options: ReplayOptions, steps: list[dict[str, Any]], where: str
) -> Vector:
    """The replay's steps as a vector of the fuzz-replay family (spec/vectors.md#vector)."""
    transcript = {"option": wire.encode(options.option), "steps": steps}
    return build.build_vector(
        f"fuzz-{FAMILY}/{_slug(args.log.stem)}-{build.content_hash(transcript)}",
        f"replay of {args.log.name} up to {where}, where a port first differed from the reference",
        SPEC,
        [FAMILY, "engine-order"],
        transcript,
    )


def first_step(outcome: Outcome) -> int | None:
    """The step where the port's answer first differs (or the harness failed)."""
    if outcome.wrong_answer is not None:
        return outcome.wrong_answer.step
    if outcome.error is not None:
        return outcome.error.step
    return None


def compare_with_port(
    args: argparse.Namespace, options: ReplayOptions, session: Session, out: TextIO
) -> int:
    """Run the recorded replay on the harness; report and write the first difference."""
    steps = session.steps or []
    if not steps:
        print("port: the log made no monitor operation; nothing to compare", file=out)
        return EXIT_OK
    vector = make_vector(args, options, steps, "its end")
    harness = Connection(args.port, timeout=args.timeout)
    try:
        try:
            hello = harness.start()
        except (HarnessFault, ProtocolMismatch) as problem:
            print(f"port: the harness is unusable: {problem}", file=out)
            return EXIT_UNUSABLE
        missing = sorted(set(vector.features) - set(hello["features"]))
        if missing:
            print(
                f"port: the harness lacks features this log needs: {', '.join(missing)}", file=out
            )
            return EXIT_UNUSABLE
        outcome = run_vector(harness, vector, str(args.log))
    finally:
        harness.close()
    name = hello["implementation"]["name"]
    if outcome.status == Status.PASSED:
        print(f"port: {name} agrees with the reference on all {len(steps)} operations", file=out)
        return EXIT_OK
    step = first_step(outcome)
    index = step if step is not None else 0
    where = session.labels[index]
    end = index + 1
    while end < len(steps) and session.labels[end] == where:
        end += 1
    print(f"port: {name} first differs at {where}: {outcome.summary()}", file=out)
    found = make_vector(args, options, steps[:end], where)
    path = write_vector(args.out, FAMILY, found)
    print(
        f"port: wrote {path} (vector {found.id}); expectations are the reference's, "
        "ready to commit",
        file=out,
    )
    return EXIT_DIFFERS
