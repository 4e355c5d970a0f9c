"""Regeneration: up to date, deterministic, atomic; the format module's errors."""

from __future__ import annotations

import argparse
import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.generators import regenerate
from doomloop_kit.vectorset import writing
from doomloop_kit.vectorset.files import (
    VectorFormatError,
    compare,
    dumps,
    load_vector_file,
    validate_vector_file_data,
)

REPO = Path(__file__).resolve().parent.parent
# three transcripts per generated family, monitor and engine alike: a small set drawn quickly
SMALL = [(name, 3) for name in regenerate.family_counts()]


def _args(
    root: Path, *, check: bool = False, counts: list[tuple[str, int]] | None = None
) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    regenerate.add_arguments(parser)
    argv = ["--root", str(root), "--quiet"] + (["--check"] if check else [])
    args = parser.parse_args(argv)
    args.count = counts or []
    return args


def test_committed_vectors_are_up_to_date() -> None:
    assert regenerate.run(_args(REPO / "vectors", check=True)) == 0


def test_regeneration_is_deterministic(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    assert regenerate.run(_args(first, counts=SMALL)) == 0
    assert regenerate.run(_args(second, counts=SMALL)) == 0
    names = sorted(p.relative_to(first).as_posix() for p in first.rglob("*.json"))
    assert names == sorted(p.relative_to(second).as_posix() for p in second.rglob("*.json"))
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    assert regenerate.run(_args(first, check=True, counts=SMALL)) == 0


def test_check_names_changed_added_and_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "v"
    assert regenerate.run(_args(root, counts=SMALL)) == 0
    (root / "curated" / "facts.json").write_bytes(b"{}\n")
    (root / "curated" / "engine-scenarios.json").write_bytes(b"{}\n")
    (root / "curated" / "engine-bad-input.json").unlink()
    (root / "generated" / "repeat.json").unlink()
    (root / "generated" / "stale.json").write_text("{}\n")  # listed: the set's, removed
    manifest = json.loads((root / "manifest.json").read_text())
    manifest["files"].append({**manifest["files"][-1], "path": "generated/stale.json"})
    (root / "manifest.json").write_text(json.dumps(manifest))
    (root / "generated" / "port-own.json").write_text("{}\n")  # not listed: kept (issue 34)
    capsys.readouterr()
    assert regenerate.run(_args(root, check=True, counts=SMALL)) == 1
    out = capsys.readouterr().out
    assert "would change" in out and "facts.json" in out
    assert f"would change: {root / 'curated' / 'engine-scenarios.json'}" in out
    assert f"would add: {root / 'curated' / 'engine-bad-input.json'}" in out
    assert "would add" in out and "repeat.json" in out
    assert "would remove" in out and "stale.json" in out
    assert "port-own.json" not in out
    assert regenerate.run(_args(root, counts=SMALL)) == 0
    assert not (root / "generated" / "stale.json").exists()
    assert (root / "generated" / "port-own.json").read_text() == "{}\n"
    assert regenerate.run(_args(root, check=True, counts=SMALL)) == 0


def test_a_failed_write_leaves_the_old_set_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that fails half-way (a full disk) leaves every file of the old set, and
    nothing else (issue 23: the set is replaced as a whole, or not at all)."""
    root = tmp_path / "v"
    assert regenerate.run(_args(root, counts=SMALL)) == 0
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    calls = {"n": 0}
    real_write = writing._write_all

    def failing_write(fd: int, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] > 3:
            raise OSError(28, "No space left on device (simulated)")
        real_write(fd, data)

    monkeypatch.setattr(writing, "_write_all", failing_write)
    changed = [(name, 4) for name, _ in SMALL]
    assert regenerate.run(_args(root, counts=changed)) == 2
    monkeypatch.undo()
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    assert regenerate.debris(root) == []


def test_count_argument_is_validated() -> None:
    parser = argparse.ArgumentParser()
    regenerate.add_arguments(parser)
    assert parser.parse_args(["--count", "repeat=5"]).count == [("repeat", 5)]
    for bad in ("nosuch=3", "repeat", "repeat=x", "repeat=-1"):
        with pytest.raises(SystemExit):
            parser.parse_args(["--count", bad])


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


GOOD = {
    "format": 1, "kind": "curated", "family": "f", "description": "d",
    "vectors": [{"id": "f/a", "description": "x", "spec": ["CAN-01"], "tags": [], "features": [],
                 "steps": [{"op": "canonicalize", "value": 1, "expect": {"result": "1"}}]}],
}  # fmt: skip


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda d: d["vectors"][0]["steps"][0].pop("value"), "$.vectors[0].steps[0]"),
        (
            lambda d: d["vectors"][0]["steps"][0].__setitem__("op", "nope"),
            "$.vectors[0].steps[0].op",
        ),
        (lambda d: d["vectors"][0].__setitem__("id", "F/A"), "$.vectors[0].id"),
        (
            lambda d: d["vectors"][0]["steps"][0].__setitem__(
                "expect", {"result": 1, "error": "canonicalization"}
            ),
            "$.vectors[0].steps[0].expect",
        ),
        (lambda d: d["vectors"][0].__setitem__("features", ["nope"]), "$.vectors[0].features[0]"),
        (lambda d: d.__setitem__("format", 2), "$.format"),
        (lambda d: d["vectors"][0].__setitem__("option", True), "$.vectors[0]"),
        (lambda d: d["vectors"].append(dict(d["vectors"][0])), "$.vectors[1].id"),
        (lambda d: d["vectors"][0].__setitem__("id", "g/a"), "$.vectors[0].id"),
    ],
)
def test_malformed_files_name_file_and_path(tmp_path: Path, mutate, where: str) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(json.dumps(GOOD))
    assert load_vector_file(_write(tmp_path / "ok.json", json.dumps(data)))
    mutate(data)
    path = _write(tmp_path / "bad.json", json.dumps(data))
    with pytest.raises(VectorFormatError) as caught:
        load_vector_file(path)
    assert caught.value.path == path and str(path) in str(caught.value)
    assert caught.value.json_path == where, str(caught.value)


@pytest.mark.parametrize("text", ["", "{", '{"a": 1, "a": 2}', "\udcff"])
def test_unreadable_files(tmp_path: Path, text: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    with pytest.raises(VectorFormatError, match=r"bad\.json"):
        load_vector_file(path)
    with pytest.raises(VectorFormatError, match="cannot read"):
        load_vector_file(tmp_path / "missing.json")


def test_dumps_escapes_lone_surrogates() -> None:
    raw = dumps({"s": "\ud800x\U0001f600", "n": 2**60, "é": 1.5})
    expected = '{\n "s": "\\ud800x\U0001f600",\n "n": 1152921504606846976,\n "\u00e9": 1.5\n}\n'
    assert raw == expected.encode()
    assert json.loads(raw) == {"s": "\ud800x\U0001f600", "n": 2**60, "é": 1.5}


def test_compare_rule() -> None:
    assert compare({"a": [1, 2.0], "b": "x"}, {"b": "x", "a": [1.0, 2]}) == []
    assert compare(2**53 + 1, 2**53) == []  # both are the same double
    assert compare("\ud83d\ude00", "\U0001f600") == []  # same code units
    diffs = compare(
        {"verdict": {"message": "a", "streak": 2}},
        {"verdict": {"message": "b", "streak": 2, "x": 1}},
    )
    assert [d.path for d in diffs] == ["$.verdict.message", "$.verdict.x"]
    assert [d.path for d in compare([1, 2], [2, 1])] == ["$[0]", "$[1]"]
    assert compare([1], [1, 2])[0].path == "$"
    assert compare(True, 1)[0].reason.startswith("expected a boolean")
    assert compare(None, {}) and compare({"a b": 1}, {"a b": 2})[0].path == '$["a b"]'
    assert compare({"a": 1}, {})[0].reason == "missing member"
    # values Python's == calls equal and the rule does not: a boolean is no number, deep down
    assert compare({"a": [True]}, {"a": [1]})[0].path == "$.a[0]"
    assert compare([False, {"n": 0}], [0, {"n": False}])[0].path == "$[0]"
    assert len(compare([False, {"n": 0}], [0, {"n": False}])) == 2
    assert compare([float("nan")], [float("nan")]) == []  # as the rule has it


def test_check_names_a_different_hypothesis_instead_of_reporting_every_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import hypothesis

    monkeypatch.setattr(hypothesis, "__version__", "6.0.0")
    assert regenerate.run(_args(REPO / "vectors", check=True)) == 2
    err = capsys.readouterr().err
    assert f"drawn with Hypothesis {regenerate.HYPOTHESIS_VERSION}" in err
    assert "Hypothesis 6.0.0 is installed" in err and "would change" not in err


def test_constraints_pin_the_hypothesis_the_vectors_were_drawn_with() -> None:
    pins = dict(
        line.split("==", 1)
        for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines()
        if "==" in line and not line.startswith("#")
    )
    assert pins["hypothesis"] == regenerate.HYPOTHESIS_VERSION


# -- generated engine families (generators/engine_families.py, session 3 interface) ------------


@dataclass(frozen=True)
class _StandInFamily:
    """The EngineFamily shape: a stand-in, so that this branch tests the wiring alone."""

    name: str
    strategy: Callable[[], Any]
    count: int
    seed: int
    spec: tuple[str, ...]
    description: str


def _stand_in_pairs() -> Any:
    from doomloop_kit.generators.curated.engine.builders import fresh, text, turn
    from hypothesis import strategies as st

    def scenario(pair: tuple[str, int]) -> tuple[str, dict[str, Any]]:
        shape, n = pair
        if shape == "malformed":  # ENG-23: an unknown member
            return shape, {"id": f"stand-in-{n}", "runs": [], "extra": n}
        return shape, {
            "id": f"stand-in-{n}",
            "doomLoop": True,
            "runs": [fresh([turn(text("x" * n))])],
        }

    return st.tuples(st.sampled_from(["text", "malformed"]), st.integers(1, 50)).map(scenario)


STAND_IN = _StandInFamily(
    "stand-in", _stand_in_pairs, 6, 20261299, ("ENG-15",), "a stand-in family"
)


def test_engine_families_are_drawn_into_their_own_files(monkeypatch: pytest.MonkeyPatch) -> None:
    from doomloop_kit.engine import ScenarioError, run_scenario

    monkeypatch.setattr(regenerate, "engine_families", lambda: {"stand-in": STAND_IN})
    first = regenerate.build_all(dict(SMALL))
    raw = first["generated/engine-stand-in.json"]
    validate_vector_file_data(json.loads(raw), "generated/engine-stand-in.json")
    manifest = json.loads(first["manifest.json"])
    assert manifest["files"][-1]["path"] == "generated/engine-stand-in.json"
    data = json.loads(raw)
    assert data["generator"] == {
        "version": regenerate.GENERATOR_VERSION,
        "seed": 20261299,
        "examples": 6,
    }
    assert len(data["vectors"]) == 6
    shapes = set()
    for vector in data["vectors"]:
        shape = vector["id"].split("/")[1].rsplit("-", 1)[0]
        shapes.add(shape)
        assert vector["id"].startswith("engine-stand-in/") and vector["features"] == ["engine"]
        assert vector["tags"] == ["engine-stand-in", shape]
        try:
            ran = run_scenario(vector["scenario"])
            expected: Any = {"result": ran.to_json(), "order": ran.event_order()}
        except ScenarioError:
            expected = {"error": "bad-scenario"}
        assert compare(expected, vector["expect"]) == []
    assert shapes == {"text", "malformed"}
    parser = argparse.ArgumentParser()
    regenerate.add_arguments(parser)
    assert parser.parse_args(["--count", "engine-stand-in=2"]).count == [("engine-stand-in", 2)]
    # One more build (each builds every curated engine file): the same bytes for
    # every other file, and two of the stand-in's six vectors at count 2.
    again = regenerate.build_all(dict(SMALL) | {"engine-stand-in": 2})
    fewer = json.loads(again.pop("generated/engine-stand-in.json"))["vectors"]
    assert len(fewer) == 2 and all(vector in data["vectors"] for vector in fewer)
    assert {p: b for p, b in first.items() if p not in again} == {
        "generated/engine-stand-in.json": raw
    }
    assert {p: b for p, b in again.items() if p != "manifest.json"} == {
        p: b for p, b in first.items() if p in again and p != "manifest.json"
    }


def test_engine_families_module_is_optional(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr(importlib, "import_module", missing)
    assert regenerate.engine_families() == {}

    def broken(name: str) -> None:
        raise ModuleNotFoundError("No module named 'nowhere'", name="nowhere")

    monkeypatch.setattr(importlib, "import_module", broken)
    with pytest.raises(ModuleNotFoundError, match="nowhere"):
        regenerate.engine_families()


def test_a_failing_brief_fact_fails_the_regeneration_clearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from doomloop_kit.generators.curated.engine import vectors
    from doomloop_kit.generators.curated.engine.brief import SCENARIOS

    entry = json.loads(json.dumps(SCENARIOS[0]))
    entry["facts"] = [{"kind": "end", "run": 0, "at": "/finalText", "equals": "not the end"}]
    monkeypatch.setattr(vectors, "SCENARIOS", [entry])
    root = tmp_path / "v"
    assert regenerate.run(_args(root, counts=SMALL)) == 2
    err = capsys.readouterr().err
    assert "cannot build the vectors" in err and "engine-scenarios/i-01-" in err
    assert "not the end" in err
    assert not root.exists() or not list(root.rglob("*.json"))  # nothing half-written


def test_draws_ignore_the_literals_of_loaded_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the kit draws, Hypothesis sees no literal of the local source files
    it would otherwise mix into its draws (generators/reproducible.py); the
    end-to-end consequence, the installed wheel regenerating its own vectors
    byte for byte, is tests/test_installed_kit.py."""
    from doomloop_kit.generators.reproducible import seed_only
    from hypothesis.internal.conjecture import providers

    (tmp_path / "doomloop_literals_probe.py").write_text("PROBE = 'only-in-the-probe'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("doomloop_literals_probe")
    assert "only-in-the-probe" in providers._get_local_constants().set_for_type("string")
    with seed_only():
        assert list(providers._get_local_constants().set_for_type("string")) == []
        assert len(providers.CONSTANTS_CACHE) == 0
    assert "only-in-the-probe" in providers._get_local_constants().set_for_type("string")
