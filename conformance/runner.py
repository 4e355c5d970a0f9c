"""``doomloop-kit conformance run``: run the vectors against a port's harness.

The harness is any program that speaks protocol v1 (spec/protocol.md) on its
stdin/stdout; ``--port`` is the shell command that starts it. Each vector
ends as passed, failed (answered wrongly), errored (the harness broke: crash,
hang, junk, a harness-side error code) or skipped (the harness lacks a
feature the vector needs). The last line is ``N passed, N failed, N skipped``
where "failed" counts failures and errors; the line before breaks it down.
Exit status: 0 when nothing failed, 1 when something did, 2 when the run could
not be carried out (bad arguments, unusable harness, restart budget spent),
130/143 when interrupted.
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
import hashlib
import signal
import sys
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import FrameType
from typing import Any, Final

from doomloop_kit.vectorset import files as vformat

from . import report
from .execute import (
    ERRORED,
    FAILED,
    NOT_RUN,
    PASSED,
    SKIPPED,
    XFAILED,
    XPASSED,
    Outcome,
    VectorRun,
)
from .protocol import (
    PROTOCOL_VERSION,
    Harness,
    HarnessFault,
    ProtocolMismatch,
    add_harness_arguments,
)

EXIT_OK, EXIT_FAILED, EXIT_UNUSABLE = 0, 1, 2
DEFAULT_ROOT: Final = Path(__file__).resolve().parent.parent / "vectors"


def runner_version() -> str:
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
        help="vector root holding manifest.json (default: vectors/)",
    )
    parser.add_argument(
        "-t",
        "--family",
        action="append",
        default=[],
        metavar="TAG",
        help="only vectors of this family or carrying this tag (repeatable)",
    )
    parser.add_argument(
        "-k",
        action="append",
        default=[],
        dest="patterns",
        metavar="PATTERN",
        help="only vectors whose id matches this glob (repeatable)",
    )
    parser.add_argument(
        "--window",
        type=int,
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
        type=int,
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


# -- selection ------------------------------------------------------------------------


class UsageError(Exception):
    """Bad arguments or unreadable inputs: exit 2 with the message."""


@dataclass
class VectorSet:
    entries: list[tuple[str, vformat.Vector]]
    """(file label, vector), file order then vector order."""
    description: dict[str, Any]
    """Where the vectors came from, for the report header."""


def load_vectors(files: Sequence[Path], root: Path | None) -> VectorSet:
    try:
        if files:
            paths = list(files)
            description: dict[str, Any] = {"manifest": None}
            labels = [str(path) for path in paths]
        else:
            root = (
                root
                if root is not None
                else (Path("vectors") if Path("vectors/manifest.json").is_file() else DEFAULT_ROOT)
            )
            manifest = vformat.load_manifest(root)
            manifest_bytes = (root / vformat.MANIFEST_NAME).read_bytes()
            description = {
                "manifest": str(root / vformat.MANIFEST_NAME),
                "format": manifest.get("format"),
                "generatorVersion": manifest.get("generatorVersion"),
                "vectors": manifest.get("vectors"),
                "sha256": hashlib.sha256(manifest_bytes).hexdigest(),
            }
            labels = [entry["path"] for entry in manifest["files"]]
            paths = [root / label for label in labels]
        entries: list[tuple[str, vformat.Vector]] = []
        digests = []
        for label, path in zip(labels, paths, strict=True):
            loaded = vformat.load_vector_file(path)
            digests.append({"path": label, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
            entries.extend((label, vector) for vector in loaded.vectors)
    except (vformat.VectorFormatError, OSError) as error:
        raise UsageError(f"cannot load the vectors: {error}") from error
    if files:
        description["files"] = digests
    return VectorSet(entries, description)


def select(
    entries: list[tuple[str, vformat.Vector]], families: Sequence[str], patterns: Sequence[str]
) -> list[tuple[str, vformat.Vector]]:
    def wanted(vector: vformat.Vector) -> bool:
        if families and not any(f == vector.family or f in vector.tags for f in families):
            return False
        return not patterns or any(fnmatch.fnmatchcase(vector.id, p) for p in patterns)

    return [(label, vector) for label, vector in entries if wanted(vector)]


# -- expected failures ----------------------------------------------------------------


@dataclass
class ExpectedEntry:
    pattern: str
    reason: str
    line: int
    matched: bool = False


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


def match_expected(entries: list[ExpectedEntry], vector_id: str) -> ExpectedEntry | None:
    for entry in entries:
        if fnmatch.fnmatchcase(vector_id, entry.pattern):
            return entry
    return None


# -- the run ----------------------------------------------------------------------------


class Interrupted(BaseException):
    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass
class Tally:
    counts: Counter[str] = field(default_factory=Counter)
    missing: Counter[str] = field(default_factory=Counter)
    restarts: int = 0
    aborted: str | None = None

    def add(self, outcome: Outcome) -> None:
        self.counts[outcome.status] += 1
        self.missing.update(outcome.missing_features)

    @property
    def failed_total(self) -> int:
        return self.counts[FAILED] + self.counts[ERRORED] + self.counts[XPASSED]


class Run:
    """State of one ``conformance run``."""

    def __init__(self, args: argparse.Namespace, out: report.Console) -> None:
        self.args = args
        self.out = out
        self.harness: Harness | None = None
        self.tally = Tally()
        self.features: set[str] = set()

    def start_harness(self) -> Harness:
        harness = Harness(
            self.args.port,
            timeout=self.args.timeout,
            startup_timeout=self.args.startup_timeout,
            max_line_bytes=self.args.max_line_bytes,
        )
        self.harness = harness
        try:
            hello = harness.start()
        except BaseException as problem:
            harness.kill()
            self.harness = None
            if isinstance(problem, HarnessFault) and harness.stderr_tail():
                problem.stderr = harness.stderr_tail()
            raise
        self.features = set(hello["features"])
        return harness

    def stop_harness(self, *, polite: bool) -> None:
        if self.harness is not None:
            if polite:
                status = self.harness.close()
                if status not in (0, None):
                    self.out.note(
                        f"warning: the harness exited with status {status} "
                        "when its stdin was closed (expected 0)"
                    )
            else:
                self.harness.kill()
            self.harness = None

    def outcomes(self, selected: list[tuple[str, vformat.Vector]]) -> Iterator[Outcome]:
        """Run the selection; yield one outcome per vector, in selection order.

        Up to ``--window`` vectors are in flight on the harness at once: while
        one waits for an answer (its session id, a resume's state, its last
        step) the next ones are already sent. When the harness breaks, the
        vector that owns the oldest unanswered request is charged with the
        fault; the other vectors in flight are innocent and run again on the
        restarted harness. With ``--max-fail`` the window is 1, so that the run
        stops exactly after N failures.
        """
        max_fail = self.args.max_fail
        window = 1 if max_fail is not None else max(1, self.args.window)
        todo: collections.deque[tuple[int, str, vformat.Vector]] = collections.deque(
            (position, label, vector) for position, (label, vector) in enumerate(selected)
        )
        results: dict[int, Outcome] = {}
        active: list[tuple[int, VectorRun]] = []
        emitted = 0
        while todo or active:
            while len(active) < window and todo:
                position, label, vector = todo.popleft()
                if max_fail is not None and self.tally.failed_total >= max_fail:
                    self.tally.aborted = f"stopped after {max_fail} failed vector(s) (--max-fail)"
                if self.tally.aborted is not None:
                    results[position] = Outcome(vector, label, NOT_RUN)
                    continue
                missing = sorted(set(vector.features) - self.features)
                if missing:
                    results[position] = Outcome(vector, label, SKIPPED, missing_features=missing)
                    continue
                if self.harness is None:
                    failed = self._restart(vector, label)
                    if failed is not None:
                        results[position] = failed
                        continue
                assert self.harness is not None
                run = VectorRun(self.harness, vector, label)
                if run.advance():
                    results[position] = run.finish()
                else:
                    active.append((position, run))
            if active:
                active = self._answer(active, todo, results)
            while emitted in results:  # in selection order, as soon as possible
                yield results.pop(emitted)
                emitted += 1

    def _answer(
        self,
        active: list[tuple[int, VectorRun]],
        todo: collections.deque[tuple[int, str, vformat.Vector]],
        results: dict[int, Outcome],
    ) -> list[tuple[int, VectorRun]]:
        """Receive the next answers; return the vectors still in flight."""
        assert self.harness is not None
        first = min(active, key=lambda item: item[1].waiting.request["id"])
        try:
            self.harness.receive(first[1].waiting)
        except HarnessFault as fault:
            culprit = self.harness.oldest_pending()
            owner = next((item for item in active if item[1].owns(culprit)), first)
            outcome = owner[1].fault_outcome(fault)
            for position, run in reversed(active):  # innocent: run again after the restart
                if run is not owner[1]:
                    todo.appendleft((position, run.file, run.vector))
            harness = self.harness
            self.stop_harness(polite=False)
            # after the kill the stderr reader has seen everything the harness wrote
            if outcome.error is not None and harness.stderr_tail():
                outcome.error["stderr"] = harness.stderr_tail()
            results[owner[0]] = outcome
            self._after_fault()
            return []
        still: list[tuple[int, VectorRun]] = []
        for position, run in active:
            if run.advance():
                results[position] = run.finish()
            else:
                still.append((position, run))
        return still

    def _restart(self, vector: vformat.Vector, label: str) -> Outcome | None:
        """Start a fresh harness after a fault; the outcome charged to ``vector`` if it fails."""
        self.tally.restarts += 1
        try:
            self.start_harness()
        except ProtocolMismatch as mismatch:
            self.tally.aborted = f"the restarted harness is unusable: {mismatch}"
            return Outcome(vector, label, NOT_RUN)
        except HarnessFault as fault:
            self._after_fault()
            return Outcome(
                vector,
                label,
                ERRORED,
                error={
                    "cause": "handshake",
                    "message": f"restarting the harness failed: {fault}",
                    "stderr": fault.stderr,
                },
            )
        return None

    def _after_fault(self) -> None:
        if self.tally.restarts >= self.args.max_restarts:
            self.tally.aborted = (
                f"the harness failed after {self.tally.restarts} restart(s); the restart budget "
                f"(--max-restarts {self.args.max_restarts}) is spent, so the run ends here"
            )


def _apply_expected(outcome: Outcome, entries: list[ExpectedEntry]) -> Outcome:
    entry = match_expected(entries, outcome.id)
    if entry is None:
        return outcome
    entry.matched = True
    if outcome.status in (FAILED, ERRORED):
        outcome.expected_reason = entry.reason
        outcome.status = XFAILED
    elif outcome.status == PASSED:
        outcome.expected_reason = entry.reason
        outcome.status = XPASSED
    return outcome


def run(args: argparse.Namespace) -> int:
    out = report.Console(sys.stdout, args.progress, args.verbose)
    try:
        return _run(args, out)
    except UsageError as error:
        out.note(f"error: {error}")
        return EXIT_UNUSABLE


def _run(args: argparse.Namespace, out: report.Console) -> int:
    if args.max_restarts < 0 or (args.max_fail is not None and args.max_fail < 1):
        raise UsageError("--max-restarts must be >= 0 and --max-fail >= 1")
    if args.window < 1:
        raise UsageError("--window must be >= 1")
    if args.timeout <= 0 or args.startup_timeout <= 0:
        raise UsageError("--timeout and --startup-timeout must be positive")
    vector_set = load_vectors(args.files, args.vectors)
    expected = read_expected_failures(args.expected_failures) if args.expected_failures else []
    stale = [
        entry
        for entry in expected
        if not any(fnmatch.fnmatchcase(v.id, entry.pattern) for _, v in vector_set.entries)
    ]
    selected = select(vector_set.entries, args.family, args.patterns)
    if not selected:
        raise UsageError("no vector matches the selection")

    state = Run(args, out)
    json_report = report.JsonLines(args.report_json) if args.report_json else None
    outcomes: list[Outcome] = []
    previous = _install_signal_handlers()
    status = EXIT_FAILED
    try:
        try:
            hello = state.start_harness().hello
        except (HarnessFault, ProtocolMismatch) as problem:
            stderr = problem.stderr if isinstance(problem, HarnessFault) else []
            reason = f"the harness is unusable: {problem}"
            out.note(f"error: {reason}")
            for line in stderr[-20:]:
                out.note(f"  stderr| {line}")
            if json_report:
                json_report.header(_header(args, vector_set, None, selected))
                json_report.footer(_footer(Tally(aborted=reason), EXIT_UNUSABLE, [], stderr))
            return EXIT_UNUSABLE
        if json_report:
            json_report.header(_header(args, vector_set, hello, selected))
        impl = hello["implementation"]
        out.note(
            f"harness: {impl['name']} {impl['version']} ({impl['language']}), "
            f"protocol {hello['protocol']}; {len(selected)} vector(s) selected"
        )
        out.begin(len(selected))
        for outcome in state.outcomes(selected):
            outcome = _apply_expected(outcome, expected)
            outcomes.append(outcome)
            state.tally.add(outcome)
            out.vector(outcome, state.tally.counts)
            if json_report:
                json_report.vector(outcome)
        out.end()
        state.stop_harness(polite=True)
        problems = _strictness(expected, stale, outcomes, args.expected_failures)
        status = EXIT_OK if state.tally.failed_total == 0 and not problems else EXIT_FAILED
        if state.tally.aborted is not None and not state.tally.aborted.startswith("stopped after"):
            status = EXIT_UNUSABLE
        out.summary(outcomes, state.tally, problems)
        if json_report:
            json_report.footer(_footer(state.tally, status, problems, []))
        if args.junit_xml:
            report.write_junit(args.junit_xml, outcomes)
        if args.write_expected_failures:
            report.write_expected_failures(args.write_expected_failures, outcomes)
        return status
    except Interrupted as interrupted:
        out.end()
        out.note(f"interrupted by {interrupted}; the harness was stopped")
        return 128 + interrupted.signum
    except KeyboardInterrupt:
        out.end()
        out.note("interrupted; the harness was stopped")
        return 130
    finally:
        state.stop_harness(polite=False)
        if json_report:
            json_report.close()
        _restore_signal_handlers(previous)


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
        if outcome.status == XPASSED:
            entry = match_expected(expected, outcome.id)
            assert entry is not None
            problems.append(
                f"{path}:{entry.line}: {outcome.id} is listed as an expected "
                "failure but passed; remove the entry"
            )
    return problems


def _header(
    args: argparse.Namespace,
    vector_set: VectorSet,
    hello: dict[str, Any] | None,
    selected: list[tuple[str, vformat.Vector]],
) -> dict[str, Any]:
    return {
        "type": "header",
        "runner": {"name": "doomloop-kit conformance run", "version": runner_version()},
        "protocol": PROTOCOL_VERSION,
        "vectorSet": vector_set.description,
        "harness": None
        if hello is None
        else {
            "command": args.port,
            "implementation": hello["implementation"],
            "protocol": hello["protocol"],
            "features": hello["features"],
        },
        "selection": {"families": args.family, "patterns": args.patterns, "vectors": len(selected)},
    }


def _footer(tally: Tally, status: int, problems: list[str], stderr: list[str]) -> dict[str, Any]:
    counts = tally.counts
    footer: dict[str, Any] = {
        "type": "footer",
        "totals": {
            name: counts[name]
            for name in (PASSED, FAILED, ERRORED, SKIPPED, XFAILED, XPASSED, NOT_RUN)
        },
        "missingFeatures": dict(sorted(tally.missing.items())),
        "restarts": max(0, tally.restarts),
        "aborted": tally.aborted,
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
