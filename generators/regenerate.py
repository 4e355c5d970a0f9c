"""``doomloop-kit vectors regenerate``: rebuild every vector file deterministically.

The curated files come from :mod:`~doomloop_kit.generators.curated` and
:mod:`~doomloop_kit.generators.curated.engine`, the generated ones from
:mod:`~doomloop_kit.generators.strategies` and, when it exists,
:mod:`~doomloop_kit.generators.engine_families` (files ``engine-<family>``),
drawn by Hypothesis with a fixed seed per family (no database, generate
phase only, no deadline), so the same bytes come out on every run and
machine. Every expectation is computed by the reference (:mod:`.build`): the
monitor's, or the engine's transcript for an engine vector.

Writing is atomic as a set (:func:`~doomloop_kit.vectorset.writing.publish_folder`):
the new set is written beside the root and the two folders are exchanged in
one step, so that a crash leaves the old set or the new one, never a mix.
Regeneration owns only the manifest and the files the previous manifest
lists: it replaces and removes those (naming each file it removes), and
keeps everything else of the root as it is, hard-linked, never copied (its
README, a port's own vector files). A root that is not empty and holds no
manifest is refused before anything is built: it is not a vector set.
What an interrupted write left behind -- a staging folder beside the root,
temporary files inside it -- is removed by the next regeneration and named
by ``--check``. ``--check`` builds everything in memory and exits 1 naming
each file that would change, be added or be removed. Without ``--root`` the
command refuses to rewrite the vector set of an installed (wheel) kit: that
would change the package under pip's feet.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import functools
import hashlib
import importlib
import os
import shutil
import sys
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Protocol

import hypothesis
from doomloop_kit.vectorset import loading, resources, writing
from doomloop_kit.vectorset.files import (
    FORMAT_VERSION,
    MANIFEST_NAME,
    Vector,
    VectorFile,
    dumps,
    validate_vector_file_data,
)
from doomloop_kit.vectorset.progress import Progress, add_progress_argument
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

from . import build, curated, strategies
from .curated.engine.vectors import engine_files, slug
from .reproducible import seed_only

GENERATOR_VERSION = "6"
"""Bumped when the generators change what they draw (the same seed, other transcripts)."""

HYPOTHESIS_VERSION = "6.170.17"
"""The Hypothesis release the committed vector set was drawn with (constraints.txt pins it):
another release may draw other transcripts from the same seed."""

KINDS = ("curated", "generated")

DEBRIS: Final = tuple(f"{folder}.*.tmp" for folder in ("", *(f"{kind}/" for kind in KINDS)))
"""The temporary files an interrupted write may leave in a vector root (globs)."""


def owner(listed: Collection[str]) -> Callable[[str], bool]:
    """Whether regeneration owns a file of the root (by relative path): the manifest, the
    files the previous manifest ``listed``, debris. Anything else (a README, a port's
    own vector file) is the user's and is kept."""

    def owned(relative: str) -> bool:
        return (
            relative == MANIFEST_NAME
            or relative in listed
            or any(fnmatch.fnmatchcase(relative, pattern) for pattern in DEBRIS)
        )

    return owned


def previously_listed(root: Path) -> set[str]:
    """What the manifest under ``root`` lists (nothing when there is no manifest)."""
    if not (root / MANIFEST_NAME).exists():
        return set()
    return loading.listed_paths(root)


def not_a_vector_set(root: Path) -> str | None:
    """Why ``root`` may not be regenerated (None: it may): it must be missing, an empty
    folder, or a vector set (a manifest listing its files) -- never any other folder."""
    try:
        names = os.listdir(root)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return f"{root} is not a directory"
    except OSError as error:
        return f"{root}: cannot read: {error.strerror}"
    if not names:
        return None
    if MANIFEST_NAME not in names:
        return (
            f"{root} is not empty and holds no {MANIFEST_NAME}: it is not a vector set, and "
            "regeneration replaces a vector set only (give an empty or new folder)"
        )
    try:
        previously_listed(root)
    except loading.VectorSetError as error:
        return f"{error}; regeneration replaces a vector set only"
    return None


# -- building ------------------------------------------------------------------


def curated_files() -> list[VectorFile]:
    """One file per curated module, expectations from the reference."""
    files = []
    for module in curated.modules():
        vectors = [
            build.build_vector(
                f"{module.FAMILY}/{scenario['name']}",
                scenario["description"],
                scenario["spec"],
                scenario.get("tags", []),
                {k: scenario[k] for k in ("option", "initialState", "steps") if k in scenario},
                scenario.get("extraFeatures", ()),
            )
            for scenario in module.SCENARIOS
        ]
        files.append(VectorFile("curated", module.FAMILY, module.DESCRIPTION, vectors))
    return files


DRAW_FACTOR = 3
"""Hypothesis may draw the same transcript twice; it gets this many tries per vector."""


class DrawnFamily(Protocol):
    """What drawing needs of a family: :class:`~.strategies.Family` and an ``EngineFamily``
    of :mod:`~.engine_families` both have this shape."""

    @property
    def name(self) -> str: ...

    @property
    def strategy(self) -> Callable[[], Any]: ...

    @property
    def count(self) -> int: ...

    @property
    def seed(self) -> int: ...

    @property
    def spec(self) -> tuple[str, ...]: ...

    @property
    def description(self) -> str: ...


def draw_pairs(
    strategy: Any, count: int, seed: int, key: Callable[[Any], str]
) -> list[tuple[str, Any]]:
    """Up to ``count`` distinct ``(shape, drawn)`` pairs of a strategy, reproducibly.

    Hypothesis runs with a fixed seed, no example database and the generate
    phase only; the first ``count`` distinct draws (by ``key`` of the drawn
    value, a content hash) are kept, in drawing order.
    """
    drawn: list[tuple[str, Any]] = []
    if count <= 0:
        return drawn

    keys: set[str] = set()

    @settings(
        max_examples=count * DRAW_FACTOR,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        derandomize=False,
        print_blob=False,
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
    )
    @hypothesis_seed(seed)
    @given(strategy)
    def collect(pair: tuple[str, Any]) -> None:
        found = key(pair[1])
        if len(drawn) < count and found not in keys:
            keys.add(found)
            drawn.append(pair)
        if len(drawn) >= count:
            raise _Enough  # ends the Hypothesis run early; caught below

    with seed_only(), contextlib.suppress(_Enough):
        collect()
    return drawn


def draw_transcripts(family: str, count: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """Up to ``count`` distinct draws of a monitor family's strategy, reproducibly."""
    strategy = strategies.transcripts(family, with_shape=True)
    return draw_pairs(strategy, count, seed, build.content_hash)


class _Enough(Exception):
    """Raised inside the collecting test once enough transcripts were drawn."""


def _generator(family: DrawnFamily, count: int) -> dict[str, Any]:
    return {"version": GENERATOR_VERSION, "seed": family.seed, "examples": count}


def generated_file(family: str, count: int) -> VectorFile:
    spec = strategies.FAMILIES[family]
    vectors: list[Vector] = []
    # draw_transcripts keeps distinct transcripts only (by content hash): ids are unique
    for shape, transcript in draw_transcripts(family, count, spec.seed):
        vectors.append(
            build.build_vector(
                f"{family}/{shape}-{build.content_hash(transcript)}",
                f"{spec.description} ({shape})",
                spec.spec,
                [family, shape],
                transcript,
            )
        )
    return VectorFile(
        "generated", family, spec.description, vectors, generator=_generator(spec, count)
    )


def engine_families() -> Mapping[str, DrawnFamily]:
    """The generated engine families (:mod:`.engine_families`), none while it does not exist."""
    try:
        module = importlib.import_module(f"{__package__}.engine_families")
    except ModuleNotFoundError as error:
        if error.name != f"{__package__}.engine_families":
            raise  # the module exists but imports something missing: a real error
        return {}
    families: Mapping[str, DrawnFamily] = module.ENGINE_FAMILIES
    return families


def engine_family_name(name: str) -> str:
    """The vector family of an engine family: always prefixed ``engine-``."""
    return name if name.startswith("engine-") else f"engine-{name}"


def _scenario_hash(scenario: Any) -> str:
    return build.content_hash(build.engine_transcript(scenario))


def generated_engine_file(family: DrawnFamily, count: int) -> VectorFile:
    """A generated engine file: each drawn scenario with the reference engine's transcript.

    A shape becomes a tag and a part of the id, so it is written as a slug
    (``resume-complete/stop`` -> ``resume-complete-stop``)."""
    name = engine_family_name(family.name)
    vectors = []
    for shape, scenario in draw_pairs(family.strategy(), count, family.seed, _scenario_hash):
        tag = slug(shape)
        vectors.append(
            build.build_engine_vector(
                f"{name}/{tag}-{_scenario_hash(scenario)}",
                f"{family.description} ({shape})",
                family.spec,
                [name, tag],
                scenario,
            )
        )
    return VectorFile(
        "generated", name, family.description, vectors, generator=_generator(family, count)
    )


def family_counts() -> dict[str, int]:
    """The default count of every generated family, monitor and engine (by vector family)."""
    engine = {engine_family_name(n): f.count for n, f in engine_families().items()}
    return {name: family.count for name, family in strategies.FAMILIES.items()} | engine


def file_steps(counts: Mapping[str, int]) -> list[Callable[[], list[VectorFile]]]:
    """The steps that build every vector file, in manifest order: curated (monitor,
    engine), then generated, one step per generated family (the progress bar's units)."""
    engine = engine_families()
    return [
        curated_files,
        engine_files,
        *(
            functools.partial(_one, generated_file, name, counts[name])
            for name in strategies.FAMILIES
        ),
        *(
            functools.partial(_one, generated_engine_file, family, counts[engine_family_name(name)])
            for name, family in engine.items()
        ),
    ]


def _one(build_file: Callable[[Any, int], VectorFile], family: Any, count: int) -> list[VectorFile]:
    return [build_file(family, count)]


def all_files(
    counts: Mapping[str, int], done: Callable[[], None] = lambda: None
) -> list[VectorFile]:
    """Every vector file, in manifest order; ``done`` is called after each step."""
    files: list[VectorFile] = []
    for step in file_steps(counts):
        files += step()
        done()
    return files


def build_all(
    counts: Mapping[str, int] | None = None,
    *,
    validate: bool = False,
    progress: Progress | None = None,
) -> dict[str, bytes]:
    """Every file of the vector root, relative path -> bytes, the manifest last.

    With ``validate`` each file is also checked against the schema (slow; the
    test-suite checks every committed file anyway); ``progress`` is advanced a
    step at a time (:func:`file_steps`).
    """
    counts = family_counts() | dict(counts or {})
    files = all_files(counts, progress.advance if progress is not None else lambda: None)
    out: dict[str, bytes] = {}
    entries = []
    total = 0
    for vector_file in files:
        relative = f"{vector_file.kind}/{vector_file.family}.json"
        data = vector_file.to_json()
        if validate:
            validate_vector_file_data(data, relative)
        try:
            raw = dumps(data)
        except (TypeError, ValueError) as error:
            raise build.BuildError(f"{relative}: not plain JSON: {error}") from error
        out[relative] = raw
        entries.append(
            {
                "path": relative,
                "kind": vector_file.kind,
                "family": vector_file.family,
                "vectors": len(vector_file.vectors),
                "sha256": hashlib.sha256(raw).hexdigest(),
            }
        )
        total += len(vector_file.vectors)
    ids = [v.id for f in files for v in f.vectors]
    if len(ids) != len(set(ids)):
        raise build.BuildError("duplicate vector ids across files")
    out[MANIFEST_NAME] = dumps(
        {
            "format": FORMAT_VERSION,
            "generatorVersion": GENERATOR_VERSION,
            "files": entries,
            "vectors": total,
        }
    )
    return out


# -- comparing and writing -----------------------------------------------------------


def existing_files(root: Path) -> set[str]:
    """Relative paths of the files regeneration owns (:func:`owner`) now under ``root``."""
    previous = previously_listed(root)
    owned = owner(previous)
    listed = {path for path in previous if (root / path).is_file()}
    folders = [root, *(root / kind for kind in KINDS)]
    return listed | {
        path.relative_to(root).as_posix()
        for folder in folders
        if folder.is_dir()
        for path in folder.iterdir()
        if path.is_file() and owned(path.relative_to(root).as_posix())
    }


def plan(root: Path, files: Mapping[str, bytes]) -> tuple[list[str], list[str], list[str]]:
    """(changed, added, removed) relative paths if ``files`` were written to ``root``."""
    on_disk = existing_files(root)
    changed = sorted(p for p in files if p in on_disk and (root / p).read_bytes() != files[p])
    added = sorted(p for p in files if p not in on_disk)
    removed = sorted(on_disk - set(files))
    return changed, added, removed


def debris(root: Path) -> list[Path]:
    """What interrupted writes left: staging folders beside ``root``, temporary files in it."""
    inside = sorted(root / p for p in existing_files(root) if p.endswith(".tmp"))
    return writing.debris(root) + inside


def write_all(root: Path, files: Mapping[str, bytes]) -> tuple[list[str], list[str], list[str]]:
    """Replace the vector set under ``root`` by ``files``, as a whole (module docstring).

    The staging folders earlier interrupted runs left beside ``root`` are removed first.
    """
    changed, added, removed = plan(root, files)
    for leftover in writing.debris(root):
        shutil.rmtree(leftover, ignore_errors=True)
    writing.publish_folder(root, files, owner(previously_listed(root)))
    return changed, added, removed


# -- command line --------------------------------------------------------------------


def _count(text: str) -> tuple[str, int]:
    family, sep, number = text.partition("=")
    families = family_counts()
    if not sep or family not in families:
        known = ", ".join(families)
        raise argparse.ArgumentTypeError(f"expected FAMILY=N with FAMILY one of: {known}")
    try:
        value = int(number)
    except ValueError:
        raise argparse.ArgumentTypeError(f"count {number!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError("a count cannot be negative")
    return family, value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--check",
        action="store_true",
        help="regenerate in memory; exit 1 naming every file that would change",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="vector root directory (default: the vector set the kit ships)",
    )
    parser.add_argument(
        "--count",
        action="append",
        type=_count,
        default=[],
        metavar="FAMILY=N",
        help="number of transcripts drawn for a generated family (repeatable)",
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing on success")
    add_progress_argument(parser)


def hypothesis_mismatch() -> str | None:
    """Why regenerating here cannot reproduce the committed bytes (None: it can)."""
    installed = hypothesis.__version__
    if installed == HYPOTHESIS_VERSION:
        return None
    return (
        f"the vector set was drawn with Hypothesis {HYPOTHESIS_VERSION}, but Hypothesis "
        f"{installed} is installed: the same seeds may draw other transcripts, so the "
        "generated files cannot be compared byte for byte. Install the pinned version: "
        f"pip install -c constraints.txt doomloop-kit (hypothesis=={HYPOTHESIS_VERSION})"
    )


def installed_refusal(root: Path) -> str | None:
    """Why the default root may not be rewritten (None: it may): it is a wheel's data."""
    if not resources.installed_vector_digests(root):
        return None
    return (
        f"{root} is the vector set of the installed doomloop-kit package; rewriting it "
        "would change the installed kit (its RECORD would no longer match). Give --root DIR "
        "to write the set elsewhere, or --check to compare"
    )


def run(args: argparse.Namespace) -> int:
    root = args.root if args.root is not None else resources.vectors_root()
    refusal = None if args.root is not None or args.check else installed_refusal(root)
    if refusal is not None:
        print(f"regenerate: {refusal}", file=sys.stderr)
        return 2
    refused = not_a_vector_set(root)
    if refused is not None:  # before anything is built: nothing is touched
        print(f"regenerate: {refused}", file=sys.stderr)
        return 2
    mismatch = hypothesis_mismatch()
    if mismatch is not None:
        if args.check:
            print(f"regenerate --check: cannot check: {mismatch}", file=sys.stderr)
            return 2
        print(f"regenerate: warning: {mismatch}", file=sys.stderr)
    started = time.perf_counter()
    counts = family_counts() | dict(args.count)
    try:
        with Progress(
            len(file_steps(counts)), what="building", unit="steps", mode=args.progress
        ) as progress:
            files = build_all(counts, progress=progress)
    except build.BuildError as error:
        print(f"regenerate: cannot build the vectors: {error}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - started
    size = sum(len(data) for data in files.values())
    if args.check:
        changed, added, removed = plan(root, files)
        removed = [p for p in removed if not p.endswith(".tmp")]
        for label, paths in (
            ("would change", changed),
            ("would add", added),
            ("would remove", removed),
        ):
            for path in paths:
                print(f"{label}: {root / path}")
        leftovers = debris(root)
        for leftover in leftovers:
            print(f"debris of an interrupted write (regenerate removes it): {leftover}")
        if changed or added or removed or leftovers:
            print("regenerate --check: out of date; run `doomloop-kit vectors regenerate`")
            return 1
        if not args.quiet:
            summary = f"{len(files)} files up to date ({size} bytes, built in {elapsed:.1f}s)"
            print(f"regenerate --check: {summary}")
        return 0
    leftovers = debris(root)
    try:
        changed, added, removed = write_all(root, files)
    except (OSError, loading.VectorSetError) as error:
        print(f"regenerate: cannot write under {root}: {error}", file=sys.stderr)
        return 2
    for leftover in leftovers:
        print(f"regenerate: removed debris of an interrupted write: {leftover}")
    removed = [p for p in removed if not p.endswith(".tmp")]
    for path in removed:  # each named: the previous manifest listed it, the new one does not
        print(f"regenerate: removed {root / path}")
    if not args.quiet:
        print(
            f"regenerate: {len(files)} files, {size} bytes, built in {elapsed:.1f}s "
            f"({len(changed)} changed, {len(added)} added, {len(removed)} removed)"
        )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="regenerate", description=__doc__)
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except KeyboardInterrupt:  # `doomloop-kit vectors regenerate` says the same (cli.main)
        print("regenerate: interrupted by SIGINT", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
