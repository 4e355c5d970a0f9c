"""Every ``conformance run`` example in the docs runs, selects something and passes.

The examples are read from the fenced code blocks of the Markdown files (a
line continued with a backslash is joined, a trailing ``# comment`` dropped);
the ``--port`` placeholder becomes the in-tree Go harness when it is built
(fast), else the Python reference harness; every relative path is taken in
a temporary working directory, where an empty ``known.txt`` exists; the
command ends at a shell operator (``||``, ``&&``...).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from doomloop_kit.conformance import cli
from harnesses import support

REPO = support.REPO
DOCS = [
    REPO / "README.md",
    *sorted((REPO / "spec").glob("*.md")),
    *sorted((REPO / "docs").rglob("*.md")),
    *sorted((REPO / "ports").glob("*/README.md")),
]
_FENCE = re.compile(r"^\s*(```|~~~)")
_COMMAND = re.compile(r"^(?:\S*/)?doomloop-kit conformance run\b(.*)$")
GO = REPO / "ports" / "go" / "bin" / "doomloop-harness"


def examples() -> list[tuple[str, str]]:
    found = []
    for path in DOCS:
        inside, pending = False, ""
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _FENCE.match(line):
                inside, pending = not inside, ""
                continue
            if not inside:
                continue
            line = pending + line.strip()
            if line.endswith("\\"):
                pending = line[:-1] + " "
                continue
            pending = ""
            match = _COMMAND.match(line)
            if match:
                found.append((f"{path.relative_to(REPO)}:{number}", match.group(1)))
    return found


def _port() -> str:
    return shlex.quote(str(GO)) if GO.is_file() else support.REFERENCE


def test_the_docs_have_selection_examples() -> None:
    arguments = " ".join(rest for _, rest in examples())
    for option in ("--family", "--tag", "-k"):
        assert f" {option} " in arguments, option


@pytest.mark.parametrize(("where", "rest"), examples(), ids=[w for w, _ in examples()])
def test_doc_example_runs_and_passes(
    where: str,
    rest: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    words = shlex.split(rest, comments=True)
    for operator in ("||", "&&", "|", ";", ">"):  # the command ends at a shell operator
        if operator in words:
            words = words[: words.index(operator)]
    if "--port" in words:
        words[words.index("--port") + 1] = _port()
    if "--expected-failures" in words:  # the docs name files of the checkout (a profile)
        index = words.index("--expected-failures") + 1
        if (REPO / words[index]).is_file():
            words[index] = str(REPO / words[index])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "known.txt").write_text("")
    if "--help" in words:
        with pytest.raises(SystemExit) as exit_info:
            cli.main(["conformance", "run", *words])
        assert exit_info.value.code == 0
        return
    status = cli.main(["conformance", "run", *words])
    out = capsys.readouterr().out
    assert status == 0, f"{where}: {out[-2000:]}"
    last = out.rstrip().splitlines()[-1]
    # skipped vectors need a feature the port does not declare (the Go port: js-coercion)
    assert re.fullmatch(r"[1-9]\d* passed, 0 failed, \d+ skipped", last), f"{where}: {last}"
