"""Issue 34: inputs treated with care -- nothing destroyed, nothing missed silently,
no traceback on hostile data.

One test (or a few) per numbered case of the issue, each on real processes
with small limits (``prlimit``/``resource``, sparse files, FIFOs, links) so
that each runs in seconds. The rules they pin are in docs/guide/ci.md
("Inputs") and docs/guide/replay.md ("What the replay reads"), the protocol's
bounds in spec/protocol.md (PROT-45, PROT-46). The three harnesses' side of
the bounds is in test_hostile_lines.py. Case 12 (Ctrl-C during ``--dask
local``) belongs to issue 32.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from doomloop_kit.generators import regenerate
from harnesses import support

KIT = [sys.executable, "-m", "doomloop_kit.conformance.cli"]
FAST = ["--progress", "lines"]
ESCAPES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters that must never reach a terminal raw (a line feed and a tab may)."""


def _kit(
    args: list[str], *, limit_as: int | None = None, timeout: float = 120, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """Run the kit; ``limit_as`` caps its address space (bytes)."""

    def cap() -> None:
        if limit_as is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))

    return subprocess.run(
        [*KIT, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=cap,
        errors="surrogateescape",
        **kwargs,
    )


def _no_traceback(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr + done.stdout, done.stderr[-3000:]


def _chat(*messages: dict[str, Any]) -> str:
    return "".join(json.dumps(message) + "\n" for message in messages)


def _call(name: str, arguments: str, call_id: str = "c1") -> dict[str, Any]:
    function = {"name": name, "arguments": arguments}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }


def _loop(path: Path, rounds: int = 3) -> Path:
    """A chat log: the same call ``rounds`` times."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for index in range(rounds):
        messages.append(_call("read", '{"path": "a"}', f"c{index}"))
        messages.append({"role": "tool", "tool_call_id": f"c{index}", "content": "same"})
    path.write_text(_chat(*messages), encoding="utf-8")
    return path


def _reseal(root: Path) -> None:
    """Write the manifest again from the files as they are (a re-sealed, edited set)."""
    manifest = json.loads((root / "manifest.json").read_text())
    for entry in manifest["files"]:
        entry["sha256"] = hashlib.sha256((root / entry["path"]).read_bytes()).hexdigest()
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def _edit_vector_file(root: Path, path: str, edit: Callable[[dict[str, Any]], None]) -> None:
    data = json.loads((root / path).read_text())
    edit(data)
    (root / path).write_text(json.dumps(data, indent=1) + "\n")
    _reseal(root)


def _deep(levels: int, inner: str = "1") -> str:
    return "[" * levels + inner + "]" * levels


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return support.fixture_root(tmp_path / "vectors")


def _run(
    root: Path | None, port: str, *extra: str, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    where = [] if root is None else ["--vectors", str(root)]
    return _kit(["conformance", "run", *where, "--port", port, *FAST, *extra], **kwargs)


# -- 1. a text check that runs out of memory --


def _address_space_of_a_small_replay(tmp_path: Path) -> int:
    """The peak address space (bytes) of the replay command on a tiny log: the floor
    under which the command cannot even start."""
    log = _loop(tmp_path / "tiny.chat.jsonl", 1)
    probe = (
        "import sys\n"
        "from doomloop_kit.conformance import cli\n"
        f"cli.main(['replay', {str(log)!r}, '--quiet'])\n"
        "peak = [l for l in open('/proc/self/status') if l.startswith('VmPeak')][0]\n"
        "print(int(peak.split()[1]) * 1024, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return int(done.stderr.split()[-1])


def test_a_text_check_that_runs_out_of_memory_is_a_shown_problem_not_a_quiet_pass(
    tmp_path: Path,
) -> None:
    """The engine skips a text check that fails (ENG-111); the replay may not pass that
    off as "nothing fired": it names the response, counts it and exits 2."""
    text = "the same words again and again " * 200_000  # 6 MB; reading it takes ~5 times
    # that, the text check of its repetition ~15 times: the limit lets the one and not the other
    log = tmp_path / "big.chat.jsonl"
    log.write_text(
        _chat(
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": text},
            {"role": "user", "content": "again"},
            {"role": "assistant", "content": text},
        ),
        encoding="utf-8",
    )
    floor = _address_space_of_a_small_replay(tmp_path)
    report = tmp_path / "r.jsonl"
    done = _kit(["replay", str(log), "--json", str(report)], limit_as=floor + 8 * len(text))
    _no_traceback(done)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{log}:4: the text check could not run (MemoryError)" in done.stderr
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    skipped = [line for line in lines if line["type"] == "skipped"]
    assert {line["line"] for line in skipped} in ({4}, {2, 4})  # the second needs more
    assert all(line["check"] == "text" for line in skipped)
    noun = "check" if len(skipped) == 1 else "checks"
    assert f"incomplete: {len(skipped)} {noun} skipped" in done.stdout
    assert lines[-1]["skippedChecks"] == len(skipped)
    # a fleet names it as a problem of that run, and still reports the run
    fleet = _kit(
        ["replay", str(log), "--fleet", "--json", str(tmp_path / "f.jsonl")],
        limit_as=floor + 8 * len(text),
    )
    _no_traceback(fleet)
    assert fleet.returncode == 2
    assert f"{log}:4: the text check could not run" in fleet.stderr
    summary = json.loads((tmp_path / "f.jsonl").read_text().splitlines()[-1])
    assert summary["problems"] >= 1 and summary["all"]["runs"] == 1


# -- 2. a fleet's files: links, loops, unreadable folders --


def _fleet(
    args: list[str], **kwargs: Any
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    report = Path(args[0]).parent / "fleet-report.jsonl"
    done = _kit(["replay", *args, "--json", str(report), "--progress", "none"], **kwargs)
    _no_traceback(done)
    lines = (
        [json.loads(line) for line in report.read_text().splitlines()] if report.exists() else []
    )
    return done, (lines[-1] if lines else {})


def test_a_link_back_up_the_tree_is_a_problem_and_each_file_is_replayed_once(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    _loop(runs / "a.chat.jsonl")
    (runs / "loop").symlink_to(".")
    (runs / "again.chat.jsonl").symlink_to("a.chat.jsonl")  # the same file, twice named
    for given in (str(runs), f"{runs}/**/*.jsonl"):
        done, summary = _fleet([given], timeout=60)
        assert summary["files"] == 1 and summary["all"]["runs"] == 1, (given, summary)
        assert "a loop of links" in done.stderr, done.stderr
        assert done.returncode == 2 and summary["problems"] >= 1


def test_two_links_up_the_tree_do_not_hang_the_fleet(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    _loop(runs / "a.chat.jsonl")
    (runs / "up1").symlink_to(".")
    (runs / "up2").symlink_to(".")
    for given in (str(runs), f"{runs}/**/*.jsonl"):
        done, summary = _fleet([given], timeout=60)
        assert summary["files"] == 1 and done.returncode == 2, (given, done.stderr)


def test_a_file_linked_to_itself_is_a_problem_not_a_traceback(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    _loop(runs / "a.chat.jsonl")
    (runs / "self.chat.jsonl").symlink_to("self.chat.jsonl")
    done, summary = _fleet([str(runs)])
    assert done.returncode == 2
    assert "self.chat.jsonl" in done.stderr and "a loop of links" in done.stderr
    assert summary["all"]["runs"] == 1 and summary["problems"] == 1


def test_an_unreadable_folder_is_a_problem() -> None:
    """Run as an unprivileged user (root reads any folder), in a folder it can reach."""
    base = Path(tempfile.mkdtemp(prefix="doomloop-unreadable-"))
    try:
        base.chmod(0o755)
        runs = base / "runs"
        (runs / "closed").mkdir(parents=True)
        _loop(runs / "a.chat.jsonl")
        _loop(runs / "closed" / "b.chat.jsonl")
        (runs / "closed").chmod(0)
        report = base / "out" / "fleet.jsonl"
        report.parent.mkdir()
        report.parent.chmod(0o777)
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        if os.geteuid() != 0 or shutil.which("setpriv") is None:
            nobody = []
        done = subprocess.run(
            [*nobody, *KIT, "replay", str(runs), "--json", str(report), "--progress", "none"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        _no_traceback(done)
        assert done.returncode == 2, done.stderr
        assert f"{runs / 'closed'}: cannot read the folder" in done.stderr
        summary = json.loads(report.read_text().splitlines()[-1])
        assert summary["files"] == 1 and summary["problems"] == 1
    finally:
        (base / "runs" / "closed").chmod(0o755)
        shutil.rmtree(base)


# -- 3. the summary line adds up --

_EVERYTHING_INTERNAL = """
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "hello":
        implementation = {"name": "wrong", "language": "py", "version": "0"}
        result = {"protocol": 1, "implementation": implementation, "features": []}
        print(json.dumps({"id": 0, "result": result}), flush=True)
    else:
        error = {"code": "internal", "message": "not this monitor"}
        print(json.dumps({"id": request["id"], "error": error}), flush=True)
"""


def _counts(line: str) -> dict[str, int]:
    return {word: int(n) for n, word in re.findall(r"(\d+) ([a-z][a-z ]*?)(?:,|$)", line)}


def test_an_errored_vector_listed_as_expected_is_still_an_error(root: Path, tmp_path: Path) -> None:
    known = tmp_path / "known.txt"
    known.write_text("*  # everything\n")
    port = f"{sys.executable} -c {shlex.quote(_EVERYTHING_INTERNAL)}"
    done = _run(root, port, "--family", "state", "--expected-failures", str(known))
    last = done.stdout.rstrip().splitlines()[-1]
    counts = _counts(last)
    assert counts["errored"] > 0 and counts["passed"] == 0, last
    assert done.returncode == 3, done.stdout
    assert "(exit 3)" in done.stderr


def test_the_summary_line_adds_up_with_expected_failures(root: Path, tmp_path: Path) -> None:
    known = tmp_path / "known.txt"
    known.write_text("*  # everything\n")
    report = tmp_path / "r.jsonl"
    port = support.mutant("larger-period-tie")
    done = _run(
        root, port, "-k", "text/*", "--expected-failures", str(known), "--report-json", str(report)
    )
    last = done.stdout.rstrip().splitlines()[-1]
    counts = _counts(last)
    vectors = [json.loads(line) for line in report.read_text().splitlines()][1:-1]
    assert sum(counts.values()) == len(vectors), last
    assert counts["xfailed"] == 2 and counts["xpassed"] == len(vectors) - 2, last
    assert counts["failed"] == 0 and done.returncode == 1


def test_timeouts_and_crashes_of_listed_vectors_are_errors(root: Path, tmp_path: Path) -> None:
    known = tmp_path / "known.txt"
    known.write_text("state/*  # all of them\n")
    for port, extra in (
        (support.fault("hang", 2), ["--timeout", "0.5"]),
        (support.fault("crash", 2), []),
    ):
        once = {**os.environ, "FAULT_ONCE": str(tmp_path / f"once-{len(extra)}")}
        done = _run(
            root, port, "--family", "state", "--expected-failures", str(known), *extra, env=once
        )
        last = done.stdout.rstrip().splitlines()[-1]
        assert _counts(last)["errored"] == 1, last
        assert done.returncode == 3


# -- 4. an output may not name an input --


def test_a_replay_output_may_not_be_its_log(tmp_path: Path) -> None:
    log = _loop(tmp_path / "run.jsonl")
    before = log.read_bytes()
    (tmp_path / "sub").mkdir()
    (tmp_path / "alias.jsonl").symlink_to(log)
    os.link(log, tmp_path / "hard.jsonl")
    for option, target in (
        ("--json", log),
        ("--html", log),
        ("--json", tmp_path / "alias.jsonl"),
        ("--json", tmp_path / "hard.jsonl"),
        ("--json", tmp_path / "sub" / ".." / "run.jsonl"),
    ):
        done = _kit(["replay", str(log), option, str(target)])
        _no_traceback(done)
        assert done.returncode == 2, (option, target, done.stderr)
        assert f"{option} {target}: is the input {log}" in done.stderr
        assert log.read_bytes() == before


def test_a_fleet_output_may_not_be_its_outcomes_or_inside_its_corpus(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    _loop(runs / "a.chat.jsonl")
    labels = tmp_path / "o.json"
    labels.write_text('{"a.chat": true}\n')
    done = _kit(["replay", str(runs), "--outcomes", str(labels), "--json", str(labels)])
    assert done.returncode == 2 and f"is the input {labels}" in done.stderr
    assert labels.read_text() == '{"a.chat": true}\n'
    done = _kit(["replay", str(runs), "--json", str(runs / "report.jsonl")])
    assert done.returncode == 2 and f"is inside the input {runs}" in done.stderr
    assert sorted(p.name for p in runs.iterdir()) == ["a.chat.jsonl"]


def test_a_run_output_may_not_be_or_be_inside_its_vectors_or_expected_failures(
    root: Path, tmp_path: Path
) -> None:
    started = tmp_path / "started"
    port = f"touch {started}; exit 1"
    manifest = (root / "manifest.json").read_bytes()
    known = tmp_path / "k.txt"
    known.write_text("state/*  # x\n")
    (tmp_path / "link").symlink_to(root)
    for args, needle in (
        (["--report-json", str(root / "manifest.json")], f"is inside the input {root}"),
        (["--junit-xml", str(tmp_path / "link" / "curated" / "x.json")], "is inside the input"),
        (["--report-json", str(root / "new.jsonl")], f"is inside the input {root}"),
        (
            ["--expected-failures", str(known), "--report-json", str(known)],
            f"is the input {known}",
        ),
    ):
        done = _run(root, port, *args)
        _no_traceback(done)
        assert done.returncode == 2, (args, done.stdout)
        assert needle in done.stdout + done.stderr, (args, done.stdout)
        assert not started.exists()
    assert (root / "manifest.json").read_bytes() == manifest
    assert known.read_text() == "state/*  # x\n"
    loose = root / "curated" / "state.json"
    done = _kit(["conformance", "run", str(loose), "--port", port, "--report-json", str(loose)])
    assert done.returncode == 2 and "is the input" in done.stdout
    # the one exception: the expected failures rewritten in place
    done = _run(
        root,
        support.REFERENCE,
        "--family",
        "state",
        "--expected-failures",
        str(known),
        "--write-expected-failures",
        str(known),
    )
    assert done.returncode == 1, done.stdout  # every state vector passes: the entry is stale


# -- 5. regeneration deletes only what it made --

OLD_MANIFEST = {
    "format": 1,
    "generatorVersion": "old",
    "files": [
        {"path": p, "kind": "curated", "family": "x", "vectors": 1, "sha256": "0" * 64}
        for p in ("curated/a.json", "curated/gone.json")
    ],
    "vectors": 2,
}


def _old_vector_set(root: Path) -> None:
    (root / "curated").mkdir(parents=True)
    (root / "manifest.json").write_text(json.dumps(OLD_MANIFEST))
    (root / "curated" / "a.json").write_text("old a\n")
    (root / "curated" / "gone.json").write_text("old, not produced any more\n")
    (root / "curated" / "port-own.json").write_text("a port's own vectors\n")
    (root / "README.md").write_text("the user's\n")


def test_regeneration_removes_only_what_the_previous_manifest_listed_and_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "set"
    _old_vector_set(root)
    new = {"manifest.json": b'{"new": true}\n', "curated/a.json": b"new a\n"}
    monkeypatch.setattr(regenerate, "build_all", lambda counts, progress=None: new)
    monkeypatch.setattr(regenerate, "hypothesis_mismatch", lambda: None)
    parser = argparse.ArgumentParser()
    regenerate.add_arguments(parser)
    assert regenerate.run(parser.parse_args(["--root", str(root)])) == 0
    out = capsys.readouterr().out
    assert f"regenerate: removed {root / 'curated' / 'gone.json'}" in out
    assert "1 removed" in out
    assert (root / "curated" / "port-own.json").read_text() == "a port's own vectors\n"
    assert (root / "README.md").read_text() == "the user's\n"
    assert not (root / "curated" / "gone.json").exists()
    assert (root / "curated" / "a.json").read_bytes() == b"new a\n"


def test_regeneration_refuses_a_folder_that_is_not_a_vector_set(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_text("precious\n")
    done = _kit(["vectors", "regenerate", "--root", str(home)], timeout=600)
    _no_traceback(done)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "not empty and holds no manifest.json" in done.stderr
    assert sorted(p.name for p in home.iterdir()) == ["notes.txt"]
    assert list(tmp_path.iterdir()) == [home]


def test_regeneration_keeps_the_files_it_does_not_own_as_they_are(tmp_path: Path) -> None:
    """Not copies: a hard link stays one, and a writer holding the file open writes into
    the file the set holds afterwards."""
    root = tmp_path / "set"
    _old_vector_set(root)
    own = root / "curated" / "port-own.json"
    outside = tmp_path / "elsewhere.json"
    os.link(own, outside)
    with own.open("a") as writer:
        regenerate.write_all(root, {"manifest.json": b"{}\n", "curated/a.json": b"new a\n"})
        writer.write("written meanwhile\n")
    assert own.stat().st_ino == outside.stat().st_ino
    assert own.read_text() == "a port's own vectors\nwritten meanwhile\n"


# -- 6. a lone surrogate --


def test_a_lone_surrogate_in_a_log_is_escaped_in_every_output(tmp_path: Path) -> None:
    log = tmp_path / "run.chat.jsonl"
    log.write_text(
        _chat(
            {"role": "user", "content": "go"},
            *[_call("read\udc80", "{}", f"c{n}") for n in range(3)],
        ).replace("\\udc80", "\\udc80"),
        encoding="utf-8",
    )
    assert "\\udc80" in log.read_text()
    done = _kit(["replay", str(log), "--json", str(tmp_path / "r.jsonl")])
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert "read\\udc80" in done.stdout
    report = (tmp_path / "r.jsonl").read_text(encoding="utf-8")
    assert "\\udc80" in report and all(json.loads(line) for line in report.splitlines())
    done = _kit(["replay", str(log), "--fleet", "--json", str(tmp_path / "f.jsonl")])
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "f.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["type"] == "summary"


# -- 7. bounded --jobs --


def _children(pid: int) -> set[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return {int(p) for p in found.stdout.split()}


def test_jobs_is_capped_by_the_cores_and_the_files(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    for index in range(3):
        _loop(runs / f"r{index}.chat.jsonl")
    cores = len(os.sched_getaffinity(0))
    for jobs, most in (("300", min(3, cores)), ("1000000000", min(3, cores))):
        process = subprocess.Popen(
            [*KIT, "replay", str(runs), "--jobs", jobs, "--progress", "none"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30)),
        )
        seen: set[int] = set()
        while process.poll() is None:
            seen |= _children(process.pid)
            time.sleep(0.01)
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr
        assert "Traceback" not in stderr
        assert len(seen) <= most, (jobs, seen)


# -- 8. the log reader: linear time, bounded memory --


def test_a_long_array_element_is_read_in_linear_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted, not timed: the characters the decoder is asked to look at stay within a
    small multiple of the element's size (a window grown by a fixed chunk scanned the
    element again for every chunk: quadratic)."""
    from doomloop_kit.replay import jsonstream

    element = {"role": "assistant", "content": "x" * (8 << 20)}
    log = tmp_path / "doc.json"
    # the first line opens the document: the element comes through the reading window
    log.write_text(f'[\n{{"role": "user", "content": "go"}},\n{json.dumps(element)}\n]\n')
    scanned = 0
    decoder = jsonstream._DECODER

    class Counting:
        def raw_decode(self, text: str, pos: int) -> tuple[Any, int]:
            nonlocal scanned
            scanned += len(text) - pos
            return decoder.raw_decode(text, pos)

    monkeypatch.setattr(jsonstream, "_DECODER", Counting())
    values = list(jsonstream.read_values(log))
    assert len(values) == 2 and values[1].value == element
    assert scanned <= 4 * log.stat().st_size, scanned


def test_a_huge_line_is_refused_with_its_line_and_bounded_memory(tmp_path: Path) -> None:
    """`truncate -s 2G`: two gigabytes of NUL bytes and no line feed."""
    log = tmp_path / "x.jsonl"
    log.write_text('{"role": "user", "content": "go"}\n')
    with log.open("r+b") as handle:
        handle.truncate(2 << 30)
    floor = 1 << 30
    done = _kit(["replay", str(log)], limit_as=floor + (768 << 20))
    _no_traceback(done)
    assert done.returncode == 2, done.stderr
    assert f"{log}:2: a line longer than 256 MiB" in done.stderr


def test_a_huge_value_in_a_json_document_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "doc.json"
    with log.open("wb") as handle:
        handle.write(b'[{"role": "user", "content": "go"},\n"')
        chunk = b"y" * (1 << 20)
        for _ in range(300):
            handle.write(chunk)
    done = _kit(["replay", str(log)], limit_as=(1 << 30) + (768 << 20))
    _no_traceback(done)
    assert done.returncode == 2, done.stderr
    assert f"{log}:2: a value longer than 256 MiB" in done.stderr


# -- 9. nesting, NaN, long integers, endless files --


def test_deep_nesting_in_any_input_file_is_a_problem_naming_the_file(
    root: Path, tmp_path: Path
) -> None:
    deep = _deep(100_000)
    vector_file = root / "curated" / "state.json"
    original = vector_file.read_text()
    vector_file.write_text(original.replace('"description"', f'"deep": {deep}, "description"', 1))
    _reseal(root)
    done = _run(root, support.REFERENCE)
    _no_traceback(done)
    assert done.returncode == 2 and "state.json" in done.stdout
    assert "nested deeper than 10,000 levels" in done.stdout
    vector_file.write_text(original)
    _reseal(root)
    manifest = root / "manifest.json"
    text = manifest.read_text()
    manifest.write_text(text.replace('"files"', f'"deep": {deep}, "files"', 1))
    done = _run(root, support.REFERENCE)
    _no_traceback(done)
    assert done.returncode == 2 and "nested deeper than 10,000 levels" in done.stdout
    log = _loop(tmp_path / "run.chat.jsonl")
    labels = tmp_path / "o.json"
    labels.write_text('{"run.chat": ' + deep + "}\n")
    done = _kit(["replay", str(log), "--outcomes", str(labels)])
    _no_traceback(done)
    assert done.returncode == 2 and f"{labels}:1: nested deeper than 10,000 levels" in done.stderr
    done = _kit(["replay", str(log), "--option", '{"ladder": ' + _deep(20_000) + "}"])
    _no_traceback(done)
    assert done.returncode == 2 and "--option: nested deeper than 10,000 levels" in done.stderr


def test_a_bare_nan_in_a_resealed_vector_file_is_refused_at_load(root: Path) -> None:
    path = root / "curated" / "state.json"
    text = path.read_text()
    path.write_text(text.replace('"round": 1', '"round": NaN', 1))
    assert "NaN" in path.read_text()
    _reseal(root)
    done = _run(root, support.REFERENCE)
    _no_traceback(done)
    assert done.returncode == 2, done.stdout
    assert "state.json" in done.stdout and "NaN is not JSON" in done.stdout
    assert "passed" not in done.stdout


def test_an_integer_too_long_for_any_double_in_a_vector_file_is_refused(root: Path) -> None:
    path = root / "curated" / "state.json"
    text = path.read_text()
    path.write_text(text.replace('"round": 1', '"round": 1' + "0" * 5000, 1))
    _reseal(root)
    done = _run(root, support.REFERENCE)
    _no_traceback(done)
    assert done.returncode == 2, done.stdout
    assert "state.json" in done.stdout and "Infinity" in done.stdout


ZERO = ["--expected-failures", "/dev/zero"]


@pytest.mark.parametrize("which", ["vector file", "expected failures"])
def test_an_endless_input_is_refused_not_read_into_memory(root: Path, which: str) -> None:
    args = (
        ["conformance", "run", "/dev/zero", "--port", support.REFERENCE]
        if which == "vector file"
        else ["conformance", "run", "--vectors", str(root), "--port", support.REFERENCE, *ZERO]
    )
    done = _kit([*args, *FAST], limit_as=(1 << 30) + (512 << 20))
    _no_traceback(done)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "/dev/zero" in done.stdout
    assert "not a regular file" in done.stdout or "longer than 256 MiB" in done.stdout


# -- 10. a sweep too large --


def test_a_sweep_larger_than_the_limit_is_refused_before_it_is_built(tmp_path: Path) -> None:
    done = _kit(
        ["replay", "example:repeated-fan-out", "--sweep", "block=3..100000000,observe=1..2"],
        limit_as=1 << 30,
    )
    _no_traceback(done)
    assert done.returncode == 2
    assert "199999996 ladders is more than 1000" in done.stderr


# -- 11. control characters never reach the terminal raw --

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\rPASSED everything\x9b"


def test_control_characters_from_a_log_are_escaped(tmp_path: Path) -> None:
    log = tmp_path / "run.chat.jsonl"
    log.write_text(
        _chat(
            {"role": "user", "content": "go"},
            *[_call(HOSTILE, "{}", f"c{n}") for n in range(3)],
            {"role": "assistant", "content": HOSTILE},
        ),
        encoding="utf-8",
    )
    for extra in ([], ["--fleet"], ["--sweep", "block=2..3"]):
        done = _kit(["replay", str(log), *extra])
        _no_traceback(done)
        assert done.returncode == 0, (extra, done.stderr)
        assert not ESCAPES.search(done.stdout + done.stderr), (extra, done.stdout)
        assert "\\x1b]0;pwned" in done.stdout or extra == ["--sweep", "block=2..3"]
    weird = tmp_path / f"name{HOSTILE}.jsonl".replace("/", "")
    weird.write_text("{not json\n")
    done = _kit(["replay", str(weird)])
    assert done.returncode == 2 and not ESCAPES.search(done.stderr), done.stderr


_HOSTILE_HARNESS = """
import json, sys
hostile = {hostile!r}
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "hello":
        implementation = {{"name": hostile, "language": hostile, "version": "0"}}
        result = {{"protocol": 1, "implementation": implementation, "features": []}}
        print(json.dumps({{"id": 0, "result": result}}), flush=True)
    else:
        print(hostile, file=sys.stderr, flush=True)
        error = {{"code": "internal", "message": hostile + "\\n3 passed, 0 failed"}}
        print(json.dumps({{"id": request["id"], "error": error}}), flush=True)
"""


def test_control_characters_from_vectors_and_harnesses_are_escaped(root: Path) -> None:
    def describe(data: dict[str, Any]) -> None:
        for vector in data["vectors"]:
            vector["description"] = HOSTILE

    _edit_vector_file(root, "curated/state.json", describe)
    port = f"{sys.executable} -c {shlex.quote(_HOSTILE_HARNESS.format(hostile=HOSTILE))}"
    done = _run(root, port, "--family", "state", "-v")
    _no_traceback(done)
    assert done.returncode == 3, done.stdout
    assert not ESCAPES.search(done.stdout + done.stderr), done.stdout[-2000:]
    assert "\\x1b]0;pwned" in done.stdout
    assert not re.search(r"^3 passed", done.stdout, re.MULTILINE)


# -- 13. a FIFO as a vector file --


def test_a_fifo_as_a_vector_file_is_refused(root: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "vectors.json"
    os.mkfifo(fifo)
    done = _kit(["conformance", "run", str(fifo), "--port", support.REFERENCE], timeout=30)
    _no_traceback(done)
    assert done.returncode == 2
    assert f"{fifo}: not a regular file" in done.stdout
    state = root / "curated" / "state.json"
    state.unlink()
    os.mkfifo(state)
    done = _run(root, support.REFERENCE, timeout=30)
    assert done.returncode == 2 and "state.json: not a regular file" in done.stdout


# -- 14. a harness's descendants end with the run --


def _alive(pid: int) -> bool:
    with contextlib.suppress(OSError, IndexError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return False


@pytest.mark.parametrize(
    "spawn",
    [
        "setsid sleep 300 & echo $! >> {pids}",  # a child in a session of its own
        "( setsid sleep 300 & echo $! >> {pids} )",  # ... whose parent is gone (a daemon)
        "sleep 300 & echo $! >> {pids}",
    ],
    ids=["setsid", "daemon", "plain"],
)
def test_a_harness_child_does_not_outlive_the_run(root: Path, tmp_path: Path, spawn: str) -> None:
    pids = tmp_path / "pids"
    port = f"{spawn.format(pids=pids)}; exec {support.REFERENCE}"
    done = _run(root, port, "--family", "state")
    assert done.returncode == 0, done.stdout + done.stderr
    recorded = [int(pid) for pid in pids.read_text().split()]
    deadline = time.monotonic() + 5
    while any(_alive(pid) for pid in recorded) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in recorded if _alive(pid)]
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
    assert not left


# -- 15. valid JSON that JS reads --


def test_replay_reads_long_integers_and_deep_arguments_as_js_does(tmp_path: Path) -> None:
    """A 5,000-digit integer is a number (Infinity, as JS reads it); arguments 990 levels
    deep parse, and a loop key picks its field from them."""
    deep_arguments = '{"path": "a", "deep": ' + _deep(990) + "}"
    log = tmp_path / "run.chat.jsonl"
    user = '{"role": "user", "content": "go", "count": ' + "9" * 5000 + "}\n"
    calls = _chat(*[_call("read", deep_arguments, f"c{n}") for n in range(3)])
    log.write_text(user + calls, encoding="utf-8")
    done = _kit(["replay", str(log), "--loop-key", "read=path"])
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert "set_int_max_str_digits" not in done.stderr
    assert "read:3" in done.stdout  # the third identical call: the loop key holds
    assert "nested too deeply" not in done.stdout


# -- 16. NaN in an outcomes file --


def test_nan_in_an_outcomes_file_is_refused(tmp_path: Path) -> None:
    log = _loop(tmp_path / "r1.jsonl")
    labels = tmp_path / "o.json"
    labels.write_text('{"r1": NaN}\n')
    done = _kit(["replay", str(log), "--outcomes", str(labels)])
    _no_traceback(done)
    assert done.returncode == 2
    assert f"--outcomes {labels}:1: not JSON: NaN is not JSON" in done.stderr


# -- 18. a hanging harness under fuzz --


def test_a_hanging_harness_under_fuzz_is_a_harness_fault(tmp_path: Path) -> None:
    out = tmp_path / "found"
    done = _kit(
        [
            *("conformance", "fuzz", "--port", support.fault("hang", 3), "--timeout", "0.5"),
            *("--examples", "20", "--family", "repeat", "--out", str(out)),
        ],
        timeout=120,
    )
    _no_traceback(done)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "MISMATCH" not in done.stdout and "ready to commit" not in done.stdout
    assert "timeout" in done.stdout
    assert not out.exists() or not any(out.rglob("*.json"))


# -- the smaller ones --


def test_a_read_only_report_file_is_not_replaced(root: Path, tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    report.write_text("kept\n")
    report.chmod(0o444)
    done = _run(root, support.REFERENCE, "--family", "state", "--report-json", str(report))
    assert done.returncode == 2, done.stdout
    assert f"--report-json {report}: is read-only" in done.stdout
    assert report.read_text() == "kept\n" and report.stat().st_mode & 0o777 == 0o444


def test_a_selection_where_every_vector_is_skipped_fails(root: Path) -> None:
    """Both vectors need a feature the harness does not declare: nothing is checked."""
    needing = ["-k", "canonical/bigint-error", "-k", "canonical/negative-zero"]
    env = {**os.environ, "FAULT_FEATURES": "undefined"}
    done = _run(root, support.fault("none"), *needing, env=env)
    last = done.stdout.rstrip().splitlines()[-1]
    assert last == "0 passed, 0 failed, 0 errored, 2 skipped", last
    assert done.returncode == 2, done.stdout
    assert "every selected vector was skipped (2)" in done.stdout
    assert "(exit 2)" in done.stderr


def test_a_resealed_edited_set_says_it_is_not_the_shipped_one(tmp_path: Path) -> None:
    copy = tmp_path / "vectors"
    shutil.copytree(support.COMMITTED, copy)
    report = tmp_path / "r.jsonl"

    def edit(data: dict[str, Any]) -> None:
        data["vectors"][0]["description"] += " (edited)"

    _edit_vector_file(copy, "curated/memo.json", edit)
    done = _run(copy, support.REFERENCE, "-k", "memo/*", "--report-json", str(report))
    assert done.returncode in (0, 1), done.stdout
    header = json.loads(report.read_text().splitlines()[0])
    vector_set = header["vectorSet"]
    assert vector_set["verified"] is True
    assert vector_set["shipped"] is False
    assert vector_set["differsFromShipped"] == ["curated/memo.json"]
    assert "differs from the set the kit ships: curated/memo.json" in done.stdout
