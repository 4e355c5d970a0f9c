"""Every ``conformance run`` example in the docs runs, selects something and passes.

The examples are read from the fenced code blocks of the Markdown files (a
line continued with a backslash is joined, a trailing ``# comment`` dropped);
the ``--port`` placeholder becomes the in-tree Go harness when it is built
(fast), else the Python reference harness (both declare ``engine``, so an
example selecting engine families runs them);
every relative path is taken in a temporary working directory, where an empty
``known.txt`` exists; the command ends at a shell operator (``||``, ``&&``...).
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
_NOT_RUN = re.compile(r"^#\s*not run\b:?\s*(.*)$")
GO = REPO / "ports" / "go" / "bin" / "doomloop-harness"


def _scan(paths: list[Path] = DOCS) -> list[tuple[str, str, str | None]]:
    """Every ``conformance run`` command of the docs: (where, arguments, not-run reason)."""
    found: list[tuple[str, str, str | None]] = []
    for path in paths:
        name = path.relative_to(REPO) if path.is_relative_to(REPO) else path.name
        inside, pending, first, reason = False, "", False, None
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _FENCE.match(line):
                inside, pending, first, reason = not inside, "", True, None
                continue
            if not inside:
                continue
            if first:
                first = False
                marker = _NOT_RUN.match(line.strip())
                if marker:
                    reason = marker.group(1).strip()
                    continue
            line = pending + line.strip()
            if line.endswith("\\"):
                pending = line[:-1] + " "
                continue
            pending = ""
            match = _COMMAND.match(line)
            if match:
                found.append((f"{name}:{number}", match.group(1), reason))
    return found


def examples() -> list[tuple[str, str]]:
    return [(where, rest) for where, rest, reason in _scan() if reason is None]


def not_run_examples() -> list[tuple[str, str, str]]:
    return [(where, rest, reason) for where, rest, reason in _scan() if reason is not None]


def _port() -> str:
    """The Go harness when built (fast), else the Python reference; both declare
    ``engine``, so an example selecting engine families runs them."""
    return shlex.quote(str(GO)) if GO.is_file() else support.REFERENCE


def test_the_docs_have_selection_examples() -> None:
    arguments = " ".join(rest for _, rest in examples())
    for option in ("--family", "--tag", "-k"):
        assert f" {option} " in arguments, option


def test_the_docs_have_an_engine_example() -> None:
    """Run by test_doc_example_runs_and_passes like any other: its last line counts
    the engine vectors passed, none skipped."""
    assert any("--family 'engine-*'" in rest for _, rest in examples())


def test_examples_not_run_say_why_and_are_few() -> None:
    """A block marked ``# not run:`` gives its reason; most examples do run."""
    skipped = not_run_examples()
    assert all(len(reason) >= 10 for _, _, reason in skipped), skipped
    assert len(skipped) < len(examples())


def test_the_not_run_marker_is_read_from_the_first_line_only(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```sh\n# not run: needs the SDK installed\ndoomloop-kit conformance run --port x\n```\n"
        "```sh\ndoomloop-kit conformance run --port y  # not run: too late, it runs\n```\n",
        encoding="utf-8",
    )
    assert [(where, rest.strip(), reason) for where, rest, reason in _scan([page])] == [
        ("page.md:3", "--port x", "needs the SDK installed"),
        ("page.md:6", "--port y  # not run: too late, it runs", None),
    ]


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
    # skipped vectors need a feature the port does not declare (Go: object-identity)
    assert re.fullmatch(r"[1-9]\d* passed, 0 failed, 0 errored, \d+ skipped", last), (
        f"{where}: {last}"
    )
