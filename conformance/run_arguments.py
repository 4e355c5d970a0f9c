"""The options of ``doomloop-kit conformance run`` and the inputs they name.

:func:`add_arguments` declares the options; :class:`Outputs` checks the
report paths before anything runs and :func:`open_vectors` opens the vector
set they select. Anything wrong with them is a :class:`UsageError`: exit
status 2, and nothing written (spec/protocol.md#prot-running).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
from dataclasses import dataclass
from pathlib import Path

from doomloop_kit.vectorset import loading, resources, writing

from .supervisor import add_harness_arguments, positive_int


class UsageError(Exception):
    """Bad arguments or unusable inputs: exit 2 with the message."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files",
        nargs="*",
        type=Path,
        help="vector files to run (default: every file the manifest lists)",
    )
    add_harness_arguments(parser, max_restarts=5)
    add_selection_arguments(parser)
    parser.add_argument(
        "--no-verify",
        action="store_true",
        help="run even when the vector set fails its integrity check (recorded in the report)",
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
        help="write the ids that failed in this run to FILE (the errored ones as comments: "
        "an error is never an expected failure)",
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


def add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    """The vector set and the selection in it (``conformance run`` and ``list``)."""
    parser.add_argument(
        "--vectors",
        type=Path,
        default=None,
        metavar="DIR",
        help="vector root holding manifest.json (default: the vector set the kit ships)",
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
        metavar="TEXT",
        help="only vectors whose id holds TEXT ('fanout'), or matches it whole when it is a "
        "glob ('facts/fanout-*') (repeatable)",
    )


def selection_of(args: argparse.Namespace) -> loading.Selection:
    return loading.Selection(tuple(args.family), tuple(args.tag), tuple(args.patterns))


def no_match(selection: loading.Selection, vector_set: loading.VectorSet) -> str:
    """Why nothing was selected: the options given (the nearest family or tag to a
    misspelt one), then the families there are."""
    families = list(dict.fromkeys(source.index.family for source in vector_set.files))
    tags = sorted({tag for source in vector_set.files for tag in source.index.tags})
    given = [
        *(("--family", family, families) for family in selection.families),
        *(("--tag", tag, tags) for tag in selection.tags),
        *(("-k", pattern, []) for pattern in selection.patterns),
    ]
    hints = [
        f"{option} {near}"
        for option, value, known in given
        for near in difflib.get_close_matches(value, known, n=1)
    ]
    hint = f" (did you mean {hints[0]}?)" if hints else ""
    return (
        f"no vector matches {' '.join(f'{o} {v}' for o, v, _ in given)}{hint}\n"
        f"known families ({len(families)}): {', '.join(families)}\n"
        "`doomloop-kit list` lists the families, tags and features with their counts; "
        "`doomloop-kit list ids -k TEXT` the ids"
    )


def open_vectors(args: argparse.Namespace) -> loading.VectorSet:
    """The vector set the options select, verified against its manifest unless
    ``--no-verify``."""
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


def inputs(args: argparse.Namespace) -> list[writing.Input]:
    """What the run reads: the vector files or the vector set's folder, and the expected
    failures (which ``--write-expected-failures`` may rewrite: it is read first)."""
    found = [writing.Input(path) for path in args.files]
    if not args.files:
        with contextlib.suppress(resources.MissingResource):
            found.append(writing.Input(args.vectors or resources.vectors_root()))
    if args.expected_failures is not None:
        with contextlib.suppress(resources.MissingResource):  # named when it is read
            path = resources.profile_or_path(args.expected_failures)
            found.append(writing.Input(path, rewritten_by="--write-expected-failures"))
    return found


@dataclass(frozen=True)
class Outputs:
    report_json: Path | None
    junit_xml: Path | None
    expected_failures: Path | None

    @classmethod
    def checked(cls, args: argparse.Namespace) -> Outputs:
        """The report paths, each writable, each its own file, none an input or inside
        one (spec/protocol.md#prot-running)."""
        outputs = cls(args.report_json, args.junit_xml, args.write_expected_failures)
        try:
            writing.check_outputs(outputs.named(), inputs(args))
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
