"""The long engine campaign against the SDK's run loop; writes the committed report.

    .venv/bin/python benchmarks/engine_campaign.py [--scenarios N] [--seeds S,S,...]
        [--harness COMMAND] [--out PATH] [--no-shrink]

(``make engine-campaign``; never part of ``make test``.) Runs N scenarios (default
21,000) of every engine family (the committed ones and the edge families of
``generators/engine_edges.py``), spread evenly over the families and the seeds,
on the SDK's run loop behind ``../shared/sdk/sdk-engine-harness.mjs``, each
judged against the reference (:mod:`doomloop_kit.conformance.campaign`). Every
difference is classified (a known difference of
:mod:`doomloop_kit.conformance.sdk_differences`, or a new class), and each class
is shrunk to a minimal scenario. Writes ``PATH.json`` (the figures) and
``PATH.md`` (the same, to read), default ``benchmarks/engine-campaign``. The
wall time is measured here and written in both; nothing else depends on the clock.

Exit status: 0 when no difference of a new class was found, 1 when one was, 2
when the SDK is not there or an argument is bad, 3 when the harness is unusable.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from doomloop_kit.conformance import campaign
from doomloop_kit.conformance.protocol import HarnessFault, ProtocolMismatch
from doomloop_kit.generators import fuzz_families

REPO = Path(__file__).resolve().parent.parent
SDK_HARNESS = REPO.parent / "shared" / "sdk" / "sdk-engine-harness.mjs"
DEFAULT_COMMAND = f"DOOMLOOP_KIT={shlex.quote(str(REPO))} node {shlex.quote(str(SDK_HARNESS))}"
DEFAULT_SEEDS = (20263101, 20263102, 20263103)
SHOWN_CHARS = 400
"""Longest JSON text of a value shown in the Markdown report (the JSON has it whole)."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", type=int, default=21_000, metavar="N")
    parser.add_argument(
        "--seeds", default=",".join(map(str, DEFAULT_SEEDS)), metavar="S,S,...", type=_seeds
    )
    parser.add_argument("--harness", default=DEFAULT_COMMAND, metavar="COMMAND")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "engine-campaign")
    parser.add_argument("--no-shrink", action="store_true", help="keep each class's first scenario")
    args = parser.parse_args(argv)
    if args.harness == DEFAULT_COMMAND and not SDK_HARNESS.is_file():
        print(f"error: no SDK here: {SDK_HARNESS} is missing", file=sys.stderr)
        return 2
    if args.scenarios < 1:
        print("error: --scenarios must be at least 1", file=sys.stderr)
        return 2
    families = list(fuzz_families.ENGINE_FAMILIES)
    plan = campaign.chunks(families, args.seeds, args.scenarios)
    started = time.perf_counter()
    try:
        side = campaign.start(args.harness, lambda text: print(text, file=sys.stderr))
    except (HarnessFault, ProtocolMismatch) as problem:
        print(f"error: the harness is unusable: {problem}", file=sys.stderr)
        return 3
    try:
        runner = campaign.Campaign(side, shrink=not args.no_shrink)
        for number, chunk in enumerate(plan, 1):
            runner.run(chunk)
            elapsed = time.perf_counter() - started
            print(
                f"[{number}/{len(plan)}] {chunk.family} seed {chunk.seed}: "
                f"{chunk.scenarios} scenarios, {len(runner.classes)} classes so far, "
                f"{elapsed:.0f} s",
                file=sys.stderr,
            )
        report = runner.report()
    finally:
        side.supervisor.stop()
    report = {
        "command": _command_line(args),
        "seeds": list(args.seeds),
        "seconds": round(time.perf_counter() - started, 1),
        **report,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    json_path, md_path = args.out.with_suffix(".json"), args.out.with_suffix(".md")
    json_path.write_text(json.dumps(report, indent=1, ensure_ascii=True) + "\n", "utf-8")
    md_path.write_text(markdown(report), "utf-8")
    print(campaign.summary(report) + f" in {report['seconds']} s", file=sys.stderr)
    print(f"wrote {json_path} and {md_path}", file=sys.stderr)
    return 1 if any(not entry["known"] for entry in report["classes"]) else 0


def _seeds(text: str) -> list[int]:
    try:
        seeds = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of whole numbers: {text!r}") from None
    if not seeds:
        raise argparse.ArgumentTypeError("no seed given")
    return seeds


def _command_line(args: argparse.Namespace) -> str:
    """The command that reproduces the campaign, from the kit's root."""
    parts = [".venv/bin/python benchmarks/engine_campaign.py", f"--scenarios {args.scenarios}"]
    parts.append(f"--seeds {','.join(map(str, args.seeds))}")
    if args.harness != DEFAULT_COMMAND:
        parts.append(f"--harness {shlex.quote(args.harness)}")
    if args.no_shrink:
        parts.append("--no-shrink")
    return " ".join(parts)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def markdown(report: dict[str, Any]) -> str:
    """The report as Markdown: figures, families, then every class with its scenario."""
    families = report["families"]
    total = {
        name: sum(tally[name] for tally in families.values())
        for name in ("outsideDomain", "cutBeforeOutsideDomain", "noSdkCounterpart")
    }
    classes = report["classes"]
    new = [entry for entry in classes if not entry["known"]]
    harness = report["harness"] or {}
    lines = [
        "# Engine campaign against the SDK",
        "",
        f"Generated by `{report['command']}` (`make engine-campaign`; do not edit by hand; "
        "machine-readable form: `engine-campaign.json`).",
        "",
        f"The harness: {harness.get('name', '?')} {harness.get('version', '?')} "
        f"({harness.get('language', '?')}), the SDK's run loop behind "
        "`../shared/sdk/sdk-engine-harness.mjs`; each scenario judged against the reference "
        "engine by the engine-vector rule (ENG-139).",
        "",
        "| figure | value |",
        "| --- | --- |",
        f"| scenarios drawn | {report['scenarios']:,} |",
        f"| compared | {report['compared']:,} |",
        f"| with a difference | {report['differing']:,} |",
        f"| difference classes | {len(classes)} ({len(new)} of no known class) |",
        f"| first run outside the domain (ENG-151), not compared | {total['outsideDomain']} |",
        f"| cut before a later run outside the domain | {total['cutBeforeOutsideDomain']} |",
        f"| no SDK counterpart, not compared | {total['noSdkCounterpart']} |",
        f"| seeds | {', '.join(map(str, report['seeds']))} |",
        f"| wall time | {report['seconds']:,} s |",
        "",
        "## Families",
        "",
        "| family | scenarios | compared | differing | outside | cut | no counterpart | shapes |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, tally in families.items():
        lines.append(
            f"| `{name}` | {tally['scenarios']} | {tally['compared']} | {tally['differing']} | "
            f"{tally['outsideDomain']} | {tally['cutBeforeOutsideDomain']} | "
            f"{tally['noSdkCounterpart']} | {len(tally['shapes'])} |"
        )
    lines += ["", "The shapes of each family, with their counts, are in the JSON form.", ""]
    lines += ["## Difference classes", ""]
    if not classes:
        lines += ["None: every compared scenario agreed.", ""]
    for entry in classes:
        lines += _class_lines(entry)
    unseen = report["knownUnseen"]
    lines += [
        "## Known differences not seen",
        "",
        ", ".join(f"`{key}`" for key in unseen) if unseen else "None.",
        "",
    ]
    return "\n".join(lines)


def _class_lines(entry: dict[str, Any]) -> list[str]:
    kind = "known: " + ", ".join(entry["titles"]) if entry["known"] else "**of no known class**"
    families = ", ".join(f"`{name}` {count}" for name, count in entry["families"].items())
    lines = [
        f"### `{entry['key']}` ({entry['count']} scenarios)",
        "",
        f"{kind}.",
        "",
        f"- families: {families}",
        f"- first difference: `{entry['where']}`: {entry['reason']}",
    ]
    for side in ("reference", "sdk"):
        if side in entry:
            lines.append(
                f"- {'reference' if side == 'reference' else 'SDK'}: `{_shown(entry[side])}`"
            )
    minimal = "minimal scenario" if entry["shrunk"] else "first scenario (not shrunk)"
    lines += ["", f"{minimal}:", "", "```json", json.dumps(entry["scenario"]), "```", ""]
    return lines


if __name__ == "__main__":
    sys.exit(main())
