"""Mutation testing of the Python reference or engine against the committed vectors alone.

    .venv/bin/python tests/mutation/run.py [--workers 2] [--module monitor] [--no-write]
    .venv/bin/python tests/mutation/run.py --package engine [--workers 1] [--standin]

Two jobs, one machinery (:data:`PACKAGES`): ``--package reference`` (the
default) mutates ``reference/`` and judges each mutant by every monitor
vector; ``--package engine`` mutates ``engine/`` and judges each mutant by
every engine vector (spec §15.1.4: the scenario's transcript, by its order).
``--standin`` (engine only) judges by the brief's scenarios instead,
expected = the unmutated engine's transcripts: for development before engine
vectors are committed; it writes no report.

Mutants come from Cosmic Ray's operators (``cosmic_ray.plugins``: every
operator that takes no arguments, occurrence by occurrence, exactly as
``cosmic-ray init`` enumerates them). They are *executed* here rather than by
``cosmic-ray exec``: that command writes each mutant over the source file in
place and starts a fresh interpreter per mutant, which would disturb anyone
else working in the tree and costs ~1 s of start-up per mutant. Instead this
script loads the vectors once, then forks one child per mutant (at most
``--workers`` at a time); the child removes the reference modules (and the
oracle that binds them) from ``sys.modules``, imports them again with the
one mutated module served from memory, and replays every vector with
:mod:`replay` until the first mismatch. Nothing on disk changes.

Outcomes: *killed* (a step differs or the replay crashes), *timeout*
(counted as killed, as Cosmic Ray does, once a second run of the mutant alone
with four times the limit also times out), *survived*. A survivor listed in
``equivalents.toml`` (matched on module, operator, column and the text of
the original line, so an edit of that line makes the entry stale) is
*equivalent*. The score is killed / (mutants - equivalent).

Excluded from mutation, because they carry no behaviour: docstrings, type
annotations (every module has ``from __future__ import annotations``, so
they are never evaluated), module-level type aliases (``X = Literal[...]``,
``Callable[...]``, unions of those), ``__repr__`` methods, ``__all__`` and
``if TYPE_CHECKING:`` blocks.

Writes ``REPORT.md`` and ``results.json`` in ``tests/mutation/`` (the
reference) or ``tests/mutation/engine/`` (the engine); each job has its own
triage file there (``equivalents.toml``).
Exit status: 0 when the score meets ``--target`` (default 0.95) and every
survivor is triaged, else 1.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import importlib.abc
import importlib.util
import json
import os
import select
import signal
import sys
import tempfile
import time
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import replay  # noqa: E402

TYPE_NAMES = {"Literal", "Callable", "TypeVar", "TypeAlias", "Union", "Optional"}


@dataclass(frozen=True)
class Package:
    """What one job mutates, where its report and triage live, and what judges it."""

    name: str  # the directory in the checkout; imported as doomloop_kit.<name>
    out: Path  # REPORT.md, results.json and equivalents.toml
    judge: Callable[[], replay.Judge]
    rebind: tuple[str, ...] = ()  # what binds it at import: modules (dir/stem) or packages (dir)
    what: str = ""  # the report's sentence on what judges a mutant
    also: tuple[str, ...] = ()  # modules of other directories it mutates too (dir/stem)

    @property
    def directory(self) -> Path:
        return REPO / self.name

    def sources(self) -> list[str]:
        """The modules it mutates ("reference/monitor", "jsvalue/wire"), in report order."""
        return [f"{self.name}/{path.stem}" for path in sorted(self.directory.glob("*.py"))] + [
            *self.also
        ]

    @property
    def module(self) -> str:
        return f"doomloop_kit.{self.name}"

    def command(self, workers: int) -> str:
        """How a report was made."""
        job = "" if self.name == "reference" else f" --package {self.name}"
        return f".venv/bin/python tests/mutation/run.py{job} --workers {workers}"


PACKAGES = {
    "reference": Package(
        "reference",
        HERE,
        replay.monitor_judge,
        rebind=("vectorset/oracle", "engine"),  # the engine imports the reference
        what="replaying every committed monitor vector ({vectors} vectors, {steps} steps) "
        "through the mutated reference",
        # the JS-value layer under the reference, and the features the inputs need
        also=("jsvalue/values", "jsvalue/utf16", "jsvalue/wire", "vectorset/vocabulary"),
    ),
    "engine": Package(
        "engine",
        HERE / "engine",
        lambda: replay.engine_judge(replay.load_engine()),
        rebind=("vectorset/oracle",),  # it writes the transcript with jsjson.stringify
        also=("jsvalue/jsjson",),  # JSON.stringify of tool outputs (ENG-105)
        what="running every committed engine vector's scenario ({vectors} vectors, {runs} "
        "runs) through the mutated engine and comparing its transcript with the vector's "
        "(events by the vector's order, ENG-139; `warnings` by the fallback texts, ENG-168)",
    ),
}
REFERENCE = PACKAGES["reference"]

_SOURCES: dict[str, str] = {}
"""The sources a job imports ("reference/monitor" -> text), read once: every child
imports these, never the files, so an edit of the tree during a run cannot mix versions."""


def source_of(key: str) -> str:
    if key not in _SOURCES:
        _SOURCES[key] = (REPO / f"{key}.py").read_text(encoding="utf-8")
    return _SOURCES[key]


def snapshot_sources(package: Package = REFERENCE) -> None:
    for key in package.sources():
        source_of(key)
    for key in package.rebind:
        if (REPO / key).is_dir():
            for path in sorted((REPO / key).glob("*.py")):
                source_of(f"{key}/{path.stem}")
        else:
            source_of(key)


# -- what is mutated --------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    module: str  # e.g. "monitor"
    operator: str  # Cosmic Ray operator name
    occurrence: int
    line: int
    col: int
    end: tuple[int, int]
    code: str  # the original line, stripped
    package: str = "reference"

    @property
    def source(self) -> str:
        """The key of its module's source ("reference/monitor")."""
        return f"{self.package}/{self.module}"

    @property
    def path(self) -> str:
        return f"{self.source}.py"

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line}:{self.col} {self.operator}"


@dataclass
class Outcome:
    mutant: Mutant
    status: str  # killed | timeout | survived | equivalent
    detail: str = ""
    seconds: float = 0.0
    mutated_line: str = ""
    why: str = ""


def _char_col(lines: list[str], line: int, byte_col: int) -> int:
    """ast column offsets count UTF-8 bytes; parso's count characters."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def _span(node: ast.AST, lines: list[str]) -> tuple[tuple[int, int], tuple[int, int]]:
    start = (node.lineno, _char_col(lines, node.lineno, node.col_offset))  # type: ignore[attr-defined]
    end_line = node.end_lineno or node.lineno  # type: ignore[attr-defined]
    end = (end_line, _char_col(lines, end_line, node.end_col_offset or 0))  # type: ignore[attr-defined]
    return start, end


def _is_type_expression(node: ast.AST) -> bool:
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return bool(names & TYPE_NAMES)


def excluded_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """Regions without behaviour: (start, end, why)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    spans: list[tuple[tuple[int, int], tuple[int, int], str]] = []

    def add(node: ast.AST | None, why: str) -> None:
        if node is not None:
            spans.append((*_span(node, lines), why))

    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                add(body[0], "docstring")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name == "__repr__":
                add(node, "__repr__")
            add(node.returns, "annotation")
            arguments = node.args
            for arg in [
                *arguments.posonlyargs,
                *arguments.args,
                *arguments.kwonlyargs,
                arguments.vararg,
                arguments.kwarg,
            ]:
                if arg is not None:
                    add(arg.annotation, "annotation")
        if isinstance(node, ast.AnnAssign):
            add(node.annotation, "annotation")
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            add(node, "TYPE_CHECKING")
        # a docstring-like string after an assignment (attribute docs)
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            add(node, "docstring")
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets = [t.id for t in statement.targets if isinstance(t, ast.Name)]
            if "__all__" in targets:
                add(statement, "__all__")
            elif _is_type_expression(statement.value):
                add(statement, "type alias")
    return spans


def _inside(position: tuple[int, int], span: tuple[tuple[int, int], tuple[int, int], str]) -> bool:
    start, end, _ = span
    return start <= position < end


def enumerate_mutants(
    modules: list[str] | None = None, package: Package = REFERENCE
) -> tuple[list[Mutant], Counter[str]]:
    """Every mutant Cosmic Ray's no-argument operators make, minus the excluded regions."""
    import cosmic_ray.plugins
    from cosmic_ray.ast import ast_nodes, get_ast

    operators = []
    for name in cosmic_ray.plugins.operator_names():
        operator_class = cosmic_ray.plugins.get_operator(name)
        if not operator_class.arguments():
            operators.append((name, operator_class()))
    mutants: list[Mutant] = []
    excluded: Counter[str] = Counter()
    for key in package.sources():
        directory, _, stem = key.partition("/")
        if modules and stem not in modules:
            continue
        source = source_of(key)
        lines = source.splitlines()
        spans = excluded_spans(source)
        tree = get_ast(source)
        for name, operator in operators:
            positions = (
                (start, end)
                for node in ast_nodes(tree)
                for start, end in operator.mutation_positions(node)
            )
            for occurrence, (start, end) in enumerate(positions):
                hit = next((span for span in spans if _inside(tuple(start), span)), None)
                if hit is not None:
                    excluded[hit[2]] += 1
                    continue
                mutants.append(
                    Mutant(
                        stem,
                        name,
                        occurrence,
                        start[0],
                        start[1],
                        tuple(end),
                        lines[start[0] - 1].strip(),
                        directory,
                    )
                )
    return mutants, excluded


def mutated_source(mutant: Mutant) -> str | None:
    import cosmic_ray.plugins
    from cosmic_ray.mutating import mutate_code

    operator = cosmic_ray.plugins.get_operator(mutant.operator)()
    result: str | None = mutate_code(source_of(mutant.source), operator, mutant.occurrence)
    return result


def mutated_line(mutant: Mutant) -> str:
    """The mutated form of the mutant's lines (what the diff adds)."""
    code = mutated_source(mutant)
    if code is None:
        return "(no mutation)"
    original = source_of(mutant.source).splitlines()
    added = [
        line[1:].strip()
        for line in difflib.unified_diff(original, code.splitlines(), lineterm="", n=0)
        if line.startswith("+") and not line.startswith("+++")
    ]
    return " / ".join(added) or "(same text)"


# -- running one mutant -------------------------------------------------------------


class _SourceLoader(importlib.abc.Loader):
    def __init__(self, code: str, origin: str) -> None:
        self.code = code
        self.origin = origin

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: Any) -> None:
        exec(compile(self.code, self.origin, "exec"), module.__dict__)


def _module_name(key: str) -> str:
    """ "engine/run" -> "doomloop_kit.engine.run"; "engine/__init__" -> "doomloop_kit.engine"."""
    return "doomloop_kit." + key.removesuffix("/__init__").replace("/", ".")


class _SnapshotFinder(importlib.abc.MetaPathFinder):
    """Serves the package (one module possibly mutated) and what binds it from memory."""

    def __init__(self, package: Package, mutated: str | None, code: str | None) -> None:
        self.mutated, self.code = mutated, code
        served = (package.name, *package.also, *package.rebind)
        self.keys = {
            _module_name(key): key
            for key in _SOURCES
            if key in served or key.rpartition("/")[0] in served
        }

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        key = self.keys.get(fullname)
        if key is None:
            return None
        origin = str(REPO / f"{key}.py")
        code = self.code if key == self.mutated and self.code is not None else _SOURCES[key]
        init = key.endswith("/__init__")
        return importlib.util.spec_from_file_location(
            fullname,
            origin,
            loader=_SourceLoader(code, origin),
            submodule_search_locations=[str(Path(origin).parent)] if init else None,
        )


def _swap_in(package: Package, mutated: str | None, code: str | None) -> None:
    """Forget the package and the modules that bind it; re-import them from the
    snapshot, with the module ``mutated`` ("engine/run") replaced by ``code``."""
    finder = _SnapshotFinder(package, mutated, code)
    for name in list(sys.modules):
        if name in finder.keys:
            del sys.modules[name]
            parent, _, child = name.rpartition(".")
            if parent in sys.modules and hasattr(sys.modules[parent], child):
                delattr(sys.modules[parent], child)  # `from pkg import mod` reads this first
    sys.meta_path.insert(0, finder)


def _child(mutant: Mutant | None, judge: replay.Judge, package: Package, write_fd: int) -> None:
    """In the forked child: apply the mutant, replay, report through the pipe, exit."""
    status, message = 3, ""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        code = None
        if mutant is not None:
            code = mutated_source(mutant)
            if code is None:
                raise RuntimeError("Cosmic Ray made no mutation at this occurrence")
        _swap_in(package, mutant.source if mutant else None, code)
        problem = judge.replay()
        status, message = (0, "") if problem is None else (1, problem)
    except BaseException as error:  # a crash is a failed replay: the mutant is killed
        status, message = 2, f"replay crashed: {type(error).__name__}: {error}"
    finally:
        with contextlib.suppress(BaseException):
            os.write(write_fd, message[:400].encode("utf-8", "replace"))
        os._exit(status)


@dataclass
class _Running:
    mutant: Mutant | None
    read_fd: int
    started: float
    chunks: list[bytes] = field(default_factory=list)


def run_mutants(
    mutants: list[Mutant | None],
    judge: replay.Judge,
    workers: int,
    timeout: float,
    progress: bool = True,
    package: Package = REFERENCE,
) -> list[tuple[Mutant | None, int | None, str, float]]:
    """Run each mutant in a forked child; (mutant, exit status or None on timeout, message, s)."""
    pending = list(mutants)
    running: dict[int, _Running] = {}
    done: list[tuple[Mutant | None, int | None, str, float]] = []
    total = len(mutants)
    reported = 0
    while pending or running:
        while pending and len(running) < workers:
            mutant = pending.pop(0)
            read_fd, write_fd = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read_fd)
                _child(mutant, judge, package, write_fd)
            os.close(write_fd)
            running[pid] = _Running(mutant, read_fd, time.perf_counter())
        readable, _, _ = select.select([r.read_fd for r in running.values()], [], [], 0.05)
        for pid, item in list(running.items()):
            if item.read_fd in readable:
                data = os.read(item.read_fd, 4096)
                if data:
                    item.chunks.append(data)
            finished, status = os.waitpid(pid, os.WNOHANG)
            elapsed = time.perf_counter() - item.started
            if finished:
                with contextlib.suppress(OSError):
                    while data := os.read(item.read_fd, 4096):
                        item.chunks.append(data)
                os.close(item.read_fd)
                code = os.waitstatus_to_exitcode(status)
                message = b"".join(item.chunks).decode("utf-8", "replace")
                done.append((item.mutant, code, message, elapsed))
                del running[pid]
            elif elapsed > timeout:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os.close(item.read_fd)
                done.append((item.mutant, None, f"no result within {timeout:.0f}s", elapsed))
                del running[pid]
        if progress and len(done) != reported and (len(done) % 25 == 0 or len(done) == total):
            reported = len(done)
            print(f"\r  {reported}/{total} mutants run", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return done


# -- triage -----------------------------------------------------------------------


NOT_KILLED = ("unreachable", "unpinned")
"""Triage kinds of a survivor that still counts as not killed: *unreachable* (no
vector can hold the behaviour) and *unpinned* (a vector could, none does yet)."""
TRIAGE_KINDS = ("equivalent", *NOT_KILLED)


def load_equivalents(path: Path) -> list[dict[str, Any]]:
    """The triage file: ``[[equivalent]]`` tables with module, code, col, operators, why.

    ``code`` is the stripped original line and ``col`` the mutation's column:
    an entry stops matching (and the mutant shows as untriaged, the entry as
    stale) as soon as that line is edited.
    """
    if not path.exists():
        return []
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    entries: list[dict[str, Any]] = data.get("equivalent", [])
    for index, entry in enumerate(entries):
        for name in ("module", "operators", "col", "code", "why"):
            if name not in entry:
                raise SystemExit(f"{path}: equivalent[{index}] lacks {name!r}")
    return entries


def _also(package: Package) -> str:
    """The other modules a job mutates, as the report names them."""
    return "".join(f", `{key}.py`" for key in package.also)


def triage_of(mutant: Mutant, entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    for entry in entries:
        if (
            entry["module"] == mutant.path
            and mutant.operator in entry["operators"]
            and entry["col"] == mutant.col
            and entry["code"] == mutant.code
        ):
            return entry
    return None


# -- report -----------------------------------------------------------------------


def _killer(outcome: Outcome) -> str:
    """The vector that first failed (its id), or what ended the replay."""
    if outcome.status == "killed":
        return outcome.detail.split(":", 1)[0]
    if outcome.status == "crash":
        return outcome.detail.removeprefix("replay crashed: ").split(":", 1)[0]
    return outcome.detail if outcome.status == "timeout" else ""


def _short(operator: str) -> str:
    return operator.removeprefix("core/")


def write_outputs(
    summary: dict[str, Any], outcomes: list[Outcome], out_dir: Path, package: Package = REFERENCE
) -> None:
    survivors = [o for o in outcomes if o.status in ("survived", *TRIAGE_KINDS)]
    results = {
        **summary,
        "survivors": [
            {
                "mutant": o.mutant.key,
                "module": o.mutant.path,
                "line": o.mutant.line,
                "col": o.mutant.col,
                "operator": o.mutant.operator,
                "original": o.mutant.code,
                "mutated": o.mutated_line,
                "triage": o.status if o.status != "survived" else "UNTRIAGED",
                "why": o.why,
            }
            for o in survivors
        ],
        "mutantsColumns": ["module", "line", "col", "operator", "status", "killedBy"],
        "mutants": [
            [o.mutant.path, o.mutant.line, o.mutant.col, o.mutant.operator, o.status, _killer(o)]
            for o in outcomes
        ],
    }
    totals = summary["totals"]
    name = package.name
    lines = [
        f"# Mutation testing of the {name} against the committed vectors",
        "",
        f"Generated by `{summary['command']}` "
        "(do not edit by hand; machine-readable form: `results.json`).",
        "",
        f"Each mutant of `{name}/`{_also(package)} (Cosmic Ray "
        f"{summary['tool']['cosmicRay']} operators) is tested by "
        + package.what.format(**summary["vectors"])
        + ", stopping at the first mismatch "
        f"(`tests/mutation/replay.py`). The unit tests (`tests/test_{name}_*.py`) are not used.",
        "",
        "| figure | value |",
        "| --- | --- |",
        f"| mutants | {totals['mutants']} |",
        f"| killed by a mismatch | {totals['killedMismatch']} |",
        f"| killed by a crash of the replay | {totals['killedCrash']} |",
        f"| killed by timeout (> {summary['timeoutSeconds']:.0f} s, then "
        f"> {CONFIRM_FACTOR * summary['timeoutSeconds']:.0f} s alone) | {totals['timeout']} |",
        f"| equivalent (triaged below) | {totals['equivalent']} |",
        f"| survived, out of the vectors' reach (triaged below; counted as not killed) | "
        f"{totals['unreachable']} |",
        f"| survived, pinned by no vector yet (triaged below; counted as not killed) | "
        f"{totals['unpinned']} |",
        f"| survived, not triaged | {totals['survived']} |",
        f"| **score** = killed / non-equivalent | **{totals['killed']} / {totals['nonEquivalent']} "
        f"= {summary['score']:.2%}** |",
        f"| excluded regions (no behaviour) | {summary['excludedMutants']} mutation sites: "
        + ", ".join(f"{k} {v}" for k, v in sorted(summary["excluded"].items()))
        + " |",
        f"| one clean replay | {summary['replaySeconds']:.2f} s |",
        f"| wall time of this run | {summary['wallSeconds']:.0f} s "
        f"with {summary['workers']} workers |",
        "",
        "### Per module",
        "",
        "| module | mutants | killed | equivalent | not killed | score |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for module, row in summary["perModule"].items():
        lines.append(
            f"| `{module}` | {row['mutants']} | {row['killed']} | {row['equivalent']} | "
            f"{row['survived']} | {row['score']:.1%} |"
        )
    timeouts = [o for o in outcomes if o.status == "timeout"]
    if timeouts:
        lines += ["", "Killed by timeout (the replay never finished):", ""]
        lines += [
            f"- `{o.mutant.path}:{o.mutant.line}` {_short(o.mutant.operator)}: `{o.mutant.code}`"
            for o in timeouts
        ]
    lines += ["", "### Surviving mutants", ""]
    if not survivors:
        lines.append("None.")
    else:
        lines += [
            "Every mutant the vectors do not kill, with its triage. *Equivalent*: no input "
            "a vector can carry changes any result the replay compares; the argument is "
            "given. *Unreachable*: a behaviour no committed vector can hold, for the "
            "reason given (since protocol 1.3 a step may expect `bad-request` for an "
            "undecodable tagged value, PROT-40, so a mutant of the wire decoder's "
            "rejections is killed by the `wire-errors` family, not unreachable). *Unpinned*: a "
            "behaviour a vector could hold but none does yet (the vector that would is "
            "named). Both count as not killed. Triage lives in "
            f"`{(package.out / 'equivalents.toml').relative_to(REPO)}`.",
            "",
            "| where | mutation | original → mutated | triage |",
            "| --- | --- | --- | --- |",
        ]
        for o in survivors:
            original = o.mutant.code.replace("|", "\\|")
            mutated = o.mutated_line.replace("|", "\\|")
            triage = (
                f"{o.status}: {o.why}".replace("|", "\\|").replace("\n", " ")
                if o.status in TRIAGE_KINDS
                else "**UNTRIAGED**"
            )
            lines.append(
                f"| `{o.mutant.path}:{o.mutant.line}` | {_short(o.mutant.operator)} | "
                f"`{original}` → `{mutated}` | {triage} |"
            )
    lines.append("")
    _write_atomic(
        out_dir / "results.json", json.dumps(results, indent=1, ensure_ascii=False) + "\n"
    )
    _write_atomic(out_dir / "REPORT.md", "\n".join(lines))


def _write_atomic(path: Path, text: str) -> None:
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(name, 0o644)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


CONFIRM_FACTOR = 4
"""A mutant that timed out among the others runs again alone, with this many
times the limit: on a loaded machine a slow replay is not yet an endless one."""


def confirm_timeouts(
    raw: list[tuple[Mutant | None, int | None, str, float]],
    judge: replay.Judge,
    timeout: float,
    package: Package,
) -> list[tuple[Mutant | None, int | None, str, float]]:
    """``raw`` with each timed-out mutant replaced by its outcome when run alone
    with ``CONFIRM_FACTOR`` times the limit (still a timeout if it never ends)."""
    slow = [mutant for mutant, code, _, _ in raw if code is None]
    if not slow:
        return raw
    print(f"{len(slow)} timeouts: each runs again alone", file=sys.stderr)
    again = {
        result[0]: result
        for result in run_mutants(
            slow, judge, 1, CONFIRM_FACTOR * timeout, progress=False, package=package
        )
    }
    return [again.get(result[0], result) for result in raw]


# -- main -------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", choices=sorted(PACKAGES), default="reference")
    parser.add_argument("--workers", type=int, default=2, help="children at once (default 2)")
    parser.add_argument("--module", action="append", help="only this module (repeatable)")
    parser.add_argument("--target", type=float, default=0.95)
    parser.add_argument("--no-write", action="store_true", help="print, write no report")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--out", type=Path, help="where REPORT.md/results.json go")
    parser.add_argument(
        "--retriage",
        action="store_true",
        help="run no mutant: re-read the last results.json, apply the current triage, "
        "rewrite the report",
    )
    parser.add_argument(
        "--standin",
        action="store_true",
        help="engine only: judge by the brief's scenarios (no report unless --out)",
    )
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be >= 1")
    package = PACKAGES[args.package]
    if args.standin and package.name != "engine":
        parser.error("--standin is for --package engine")
    no_write = args.no_write or (args.standin and args.out is None)

    import cosmic_ray

    started = time.perf_counter()
    snapshot_sources(package)
    mutants, excluded = enumerate_mutants(args.module, package)
    if args.list:
        for mutant in mutants:
            print(f"{mutant.key}  {mutant.code}")
        print(f"{len(mutants)} mutants; excluded {dict(excluded)}")
        return 0
    out = args.out or package.out
    if args.retriage:
        last = json.loads((out / "results.json").read_text(encoding="utf-8"))
        raw = replayed_results(last, mutants)
        figures, workers = last["vectors"], last["workers"]
        replay_seconds, timeout, wall = (
            last["replaySeconds"],
            last["timeoutSeconds"],
            last["wallSeconds"],
        )
    else:
        judge = standin_judge() if args.standin else package.judge()
        figures, workers = judge.figures, args.workers
        # Import everything the children re-use (jcs, parso's grammar) once, here.
        from doomloop_kit.vectorset import files as _format  # noqa: F401
        from doomloop_kit.vectorset import oracle as _oracle  # noqa: F401

        mutated_source(mutants[0]) if mutants else None

        clean = run_mutants([None], judge, 1, timeout=600, progress=False, package=package)[0]
        if clean[1] != 0:
            print(
                f"the unmutated {package.name} does not replay cleanly: {clean[2]}", file=sys.stderr
            )
            return 2
        replay_seconds = clean[3]
        timeout = max(10.0, 10 * replay_seconds)
        print(
            f"{len(mutants)} mutants; clean replay {replay_seconds:.2f}s; timeout {timeout:.0f}s; "
            f"{workers} workers",
            file=sys.stderr,
        )
        raw = run_mutants(list(mutants), judge, workers, timeout, package=package)
        raw = confirm_timeouts(raw, judge, timeout, package)
        wall = time.perf_counter() - started

    entries = load_equivalents(package.out / "equivalents.toml")
    order: dict[Mutant | None, int] = {m: i for i, m in enumerate(mutants)}
    outcomes: list[Outcome] = []
    for ran, code, message, seconds in sorted(raw, key=lambda r: order[r[0]]):
        assert ran is not None
        mutant = ran
        if code is None:
            outcome = Outcome(mutant, "timeout", message, seconds)
        elif code == 0:
            triage = triage_of(mutant, entries)
            outcome = Outcome(mutant, "survived", "", seconds, mutated_line(mutant))
            if triage is not None:
                outcome.status = str(triage.get("kind", "equivalent"))
                outcome.why = " ".join(str(triage["why"]).split())
                if outcome.status not in TRIAGE_KINDS:
                    raise SystemExit(f"triage kind {outcome.status!r} is not one of {TRIAGE_KINDS}")
        else:
            kind = "killed" if code == 1 else "crash"
            outcome = Outcome(mutant, kind, message, seconds)
        outcomes.append(outcome)

    counts = Counter(o.status for o in outcomes)
    killed = counts["killed"] + counts["crash"] + counts["timeout"]
    non_equivalent = len(outcomes) - counts["equivalent"]
    score = killed / non_equivalent if non_equivalent else 1.0
    per_module: dict[str, dict[str, Any]] = {}
    for o in outcomes:
        row = per_module.setdefault(
            o.mutant.path, {"mutants": 0, "killed": 0, "equivalent": 0, "survived": 0}
        )
        row["mutants"] += 1
        key = {"crash": "killed", "timeout": "killed", **dict.fromkeys(NOT_KILLED, "survived")}.get(
            o.status, o.status
        )
        row[key] += 1
    for row in per_module.values():
        denominator = row["mutants"] - row["equivalent"]
        row["score"] = row["killed"] / denominator if denominator else 1.0
    triaged_statuses = TRIAGE_KINDS
    used = {id(triage_of(o.mutant, entries)) for o in outcomes if o.status in triaged_statuses}
    # a run of some modules only cannot tell whether an entry elsewhere is stale
    stale = [] if args.module else [e for e in entries if id(e) not in used]
    unused_operators = [
        f"{e['module']} {op} {e['code']}"
        for e in ([] if args.module else entries)
        for op in e["operators"]
        if not any(
            o.status in triaged_statuses and o.mutant.operator == op and triage_of(o.mutant, [e])
            for o in outcomes
        )
    ]
    summary = {
        "tool": {
            "cosmicRay": getattr(cosmic_ray, "__version__", None) or _version("cosmic-ray"),
            "python": sys.version.split()[0],
            "execution": "fork per mutant, mutated module served from memory",
        },
        "command": package.command(workers),
        "vectors": figures,
        "totals": {
            "mutants": len(outcomes),
            "killed": killed,
            "killedMismatch": counts["killed"],
            "killedCrash": counts["crash"],
            "timeout": counts["timeout"],
            "equivalent": counts["equivalent"],
            "unreachable": counts["unreachable"],
            "unpinned": counts["unpinned"],
            "survived": counts["survived"],
            "nonEquivalent": non_equivalent,
        },
        "score": round(score, 4),
        "target": args.target,
        "excluded": dict(sorted(excluded.items())),
        "excludedMutants": sum(excluded.values()),
        "staleTriage": [f"{e['module']} {e['code']}" for e in stale] + unused_operators,
        "replaySeconds": round(replay_seconds, 3),
        "timeoutSeconds": timeout,
        "wallSeconds": round(wall, 1),
        "workers": workers,
        "perModule": dict(sorted(per_module.items())),
    }
    print(
        f"score {killed}/{non_equivalent} = {score:.2%}; equivalent {counts['equivalent']}, "
        f"unreachable {counts['unreachable']}, unpinned {counts['unpinned']}, "
        f"untriaged survivors {counts['survived']}, timeouts {counts['timeout']}; "
        f"wall {wall:.0f}s",
        file=sys.stderr,
    )
    for o in outcomes:
        if o.status == "survived":
            print(f"  SURVIVED {o.mutant.key}: {o.mutant.code}  ->  {o.mutated_line}")
    for line in summary["staleTriage"]:
        print(f"  stale triage entry: {line}")
    if not no_write and not args.module:
        write_outputs(summary, outcomes, out, package)
    elif not no_write:
        print("(a --module run writes no report)", file=sys.stderr)
    triaged = counts["survived"] == 0 and not summary["staleTriage"]
    return 0 if score >= args.target and triaged else 1


def replayed_results(
    last: dict[str, Any], mutants: list[Mutant]
) -> list[tuple[Mutant | None, int | None, str, float]]:
    """The raw outcomes a report was made from, rebuilt from its ``results.json``
    (``--retriage``): what killed a mutant is kept; every survivor is judged again
    by the current triage file. Stops if the sources no longer have those mutants."""
    by_key = {m.key: m for m in mutants}
    columns = last["mutantsColumns"]
    raw: list[tuple[Mutant | None, int | None, str, float]] = []
    for row in last["mutants"]:
        fields = dict(zip(columns, row, strict=True))
        key = f"{fields['module']}:{fields['line']}:{fields['col']} {fields['operator']}"
        if key not in by_key:
            raise SystemExit(f"results.json names {key}, which the sources no longer have")
        status, killer = fields["status"], fields["killedBy"]
        code, message = {
            "killed": (1, f"{killer}:"),
            "crash": (2, f"replay crashed: {killer}:"),
            "timeout": (None, killer),
        }.get(status, (0, ""))
        raw.append((by_key[key], code, message, 0.0))
    if len(raw) != len(mutants):
        raise SystemExit(f"results.json has {len(raw)} mutants, the sources {len(mutants)}")
    return raw


def standin_judge() -> replay.Judge:
    """The engine judge before engine vectors exist: the brief's scenarios, each
    expected to give the unmutated engine's outcome (for development only)."""
    from doomloop_kit.generators.curated.engine.brief import SCENARIOS

    return replay.engine_judge(
        replay.prepare_engine(
            (f"brief/{entry['brief']}", entry["scenario"], replay.engine_outcome(entry["scenario"]))
            for entry in SCENARIOS
        )
    )


def _version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)


if __name__ == "__main__":
    sys.exit(main())
