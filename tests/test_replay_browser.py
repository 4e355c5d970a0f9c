"""The replay's HTML page in headless Chromium: it draws the plot, offline.

Reuses the DevTools driver of tests/test_docs_browser.py. The page is opened
from a file: URL with nothing served, so a plot can only come from the page
itself. The expected counts follow from the example (six rounds of one
3-call set under the default ladder: verdicts at rounds 2 to 6, brief
section 7), not from the page's code.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from doomloop_kit.conformance.cli import main
from test_docs_browser import Browser, ensure_chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    profile = Path(tempfile.mkdtemp(prefix="doomloop-replay-chromium-"))
    instance = Browser(ensure_chromium(), profile)
    try:
        instance.open_tab()
        yield instance
    finally:
        instance.close()
        shutil.rmtree(profile, ignore_errors=True)


def test_the_page_plots_streaks_thresholds_and_verdicts(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "fan-out.html"
    assert main(["replay", "example:repeated-fan-out", "--quiet", "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    # self-contained: nothing to fetch (the only URL is the SVG namespace name)
    assert not re.search(r"\s(src|href)\s*=", text) and "<link" not in text
    assert set(re.findall(r"https?://[^\s\"']+", text)) == {"http://www.w3.org/2000/svg"}

    browser.goto(page.as_uri())
    browser.wait("document.querySelector('#plot svg') !== null")
    series = browser.evaluate(
        "Array.from(document.querySelectorAll('#plot polyline.series'))"
        ".map(p => [p.dataset.tool, p.getAttribute('points').trim().split(' ').length])"
    )
    assert ["read_doc", 6] in series  # one point per round
    rungs = browser.evaluate(
        "Array.from(document.querySelectorAll('#plot line.threshold')).map(l => l.dataset.rung)"
    )
    assert rungs == ["observe", "block", "stop"]  # the default ladder's enabled rungs
    marks = browser.evaluate(
        "Array.from(document.querySelectorAll('#plot circle.verdict')).map(c => c.dataset.action)"
    )
    assert marks == ["observe", "block", "block", "block", "stop"]
    # the plot is really drawn: visible, with the threshold lines ordered by height
    box = browser.evaluate(
        "(() => { const r = document.querySelector('#plot svg').getBoundingClientRect();"
        " return [r.width, r.height]; })()"
    )
    assert box[0] > 500 and box[1] > 150
    heights = browser.evaluate(
        "Array.from(document.querySelectorAll('#plot line.threshold'))"
        ".map(l => l.getBoundingClientRect().top)"
    )
    assert heights[0] > heights[1] > heights[2]  # observe 2 lowest, stop 6 highest
    rows = browser.evaluate("document.querySelectorAll('#verdicts tbody tr').length")
    assert rows == 5
    summary = browser.evaluate("document.getElementById('summary').textContent")
    assert "6 rounds, 18 calls, 12 not executed" in summary
    browser.screenshot("replay-fan-out.png")


def test_the_page_of_a_resumed_run_marks_the_runs(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "resumed.html"
    assert main(["replay", "example:resumed-run", "--quiet", "--html", str(page)]) == 0
    browser.goto(page.as_uri())
    browser.wait("document.querySelector('#plot svg') !== null")
    assert browser.evaluate("document.querySelectorAll('#plot line.resume').length") == 2
    tools = browser.evaluate(
        "Array.from(new Set(Array.from(document.querySelectorAll('#plot [data-tool]'))"
        ".map(e => e.dataset.tool))).sort()"
    )
    assert tools == ["ci_log", "ci_status", "text"]


def calibration_corpus(tmp_path: Path) -> tuple[Path, Path]:
    """The fleet corpus with outcomes, a Claude Code session and its sub-agents' own files
    (labelled a success: sub-agent a1's loop interferes), a record of an unknown type and
    a session cut in its last line."""
    from test_replay import write_lines
    from test_replay_fleet import corpus, outcomes
    from test_replay_formats import chat
    from test_replay_subagents import SESSION, own_files

    folder = corpus(tmp_path)
    (folder / "cut.json").unlink()
    (folder / "binary.jsonl").unlink()
    own_files(folder / "claude")
    write_lines(folder / "odd.jsonl", [*chat(["x"]), {"role": "narrator", "content": "?"}])
    live = write_lines(folder / "live.jsonl", chat(["a", "b"]))
    live.write_text(live.read_text() + '{"role": "assi', encoding="utf-8")
    labels = outcomes(tmp_path)
    labels.write_text(json.dumps({**json.loads(labels.read_text()), SESSION: True}, indent=1))
    return folder, labels


def column(table: str, index: int) -> str:
    """JS: the text of one column of a table's rows."""
    rows = f"Array.from(document.querySelectorAll('#{table} tbody tr'))"
    return f"{rows}.map(r => r.cells[{index}].textContent)"


CHART_CHECKS = """
Array.from(document.querySelectorAll('figure.chart svg')).map(svg => {
  const box = svg.getBoundingClientRect();
  const outside = Array.from(svg.querySelectorAll('text')).filter(t => {
    const r = t.getBoundingClientRect();
    return r.left < box.left - 0.5 || r.right > box.right + 0.5
      || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5;
  }).map(t => t.textContent);
  const legend = {};
  svg.querySelectorAll('rect.legend')
    .forEach(r => { legend[r.dataset.series] = r.getAttribute('fill'); });
  const mismatched = Array.from(svg.querySelectorAll('rect.bar'))
    .filter(b => legend[b.dataset.series] !== b.getAttribute('fill')).length;
  return {id: svg.parentNode.id, outside: outside, mismatched: mismatched,
          ticks: svg.querySelectorAll('text.tick').length};
})
"""


def test_the_fleet_page_answers_which_successful_runs_the_ladder_stops(
    browser: Browser, tmp_path: Path
) -> None:
    """The calibration questions, answered on the page: which successful runs the ladder
    would interfere with, where and why, with a drill-down, a sortable list of every run,
    the ladder in force, the warnings and problems; and charts that read."""
    from test_replay_subagents import SESSION

    folder, labels = calibration_corpus(tmp_path)
    page = tmp_path / "fleet.html"
    arguments = [str(folder), "--outcomes", str(labels), "--html", str(page)]
    assert main(["replay", *arguments, "--sweep", "block=3|6,stop=6", "--progress", "none"]) == 2
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"\s(src|href)\s*=\s*[\"'](?!#)", text)  # nothing to fetch
    browser.goto(page.as_uri())
    browser.wait("document.querySelector('#run-table tbody tr') !== null")
    # the successful runs interfered with, first on the page, each with where and why
    order = browser.evaluate("Array.from(document.querySelectorAll('section')).map(s => s.id)")
    assert order[:3] == ["setup", "interfered", "verdicts"]
    interfered = browser.evaluate(
        "Array.from(document.querySelectorAll('#interfered-table tbody tr')).map(r =>"
        " [r.querySelector('a').dataset.run,"
        " ...Array.from(r.cells).slice(1).map(c => c.textContent)])"
    )
    assert sorted(row[0] for row in interfered) == sorted(["repo__repo-1", f"{SESSION}/agent-a1"])
    for row in interfered:
        assert row[1:3] == ["success", "block"]
        assert row[3].startswith("round 3 (line ")  # the third identical call
        assert "identical" in row[7]  # the streak's results: a loop
    # the ladder and options in force, the labels matched
    ladder = browser.evaluate(column("ladder", 1))
    assert ladder == ["streak 2", "off", "off", "streak 3", "streak 6"]
    facts = browser.evaluate("document.querySelector('#setup dl').textContent")
    assert "4 of 5 matched a run" in facts  # 'ghost' names no run
    # every run, sortable: by calls, descending then ascending
    header = (
        "Array.from(document.querySelectorAll('#run-table th'))"
        ".find(h => h.textContent.startsWith('calls'))"
    )
    calls = (
        "Array.from(document.querySelectorAll('#run-table tbody tr'))"
        ".map(r => Number(r.cells[4].textContent))"
    )
    browser.evaluate(header + ".click()")
    descending = browser.evaluate(calls)
    assert descending == sorted(descending, reverse=True) and len(descending) == 10
    browser.evaluate(header + ".click()")
    assert browser.evaluate(calls) == sorted(descending)
    # a run's drill-down: where each rung fired, its timeline, its streaks, its session
    browser.evaluate(f"document.querySelector('a[data-run=\"{SESSION}/agent-a1\"]').click()")
    browser.wait(f"document.querySelector('#drill').dataset.run === '{SESSION}/agent-a1'")
    fired = browser.evaluate(
        "Array.from(document.querySelectorAll('#fired-table tbody tr'))"
        ".map(r => [r.cells[0].textContent, r.cells[1].textContent, r.cells[3].textContent])"
    )
    assert fired == [["observe", "2", "Read"], ["block", "3", "Read"]]
    plot = browser.evaluate(
        "(() => { const svg = document.querySelector('#drill-plot svg');"
        " return [Array.from(svg.querySelectorAll('line.threshold')).map(l => l.dataset.rung),"
        " Array.from(svg.querySelectorAll('circle.verdict')).map(c => c.dataset.action),"
        " svg.getBoundingClientRect().height]; })()"
    )
    assert plot[0] == ["observe", "block", "stop"] and plot[1] == ["observe", "block"]
    assert plot[2] > 150
    streaks = browser.evaluate(column("streak-table", 4))
    assert streaks == ["identical"]
    parent = browser.evaluate("document.querySelector('#drill dl a').dataset.run")
    assert parent == SESSION
    browser.screenshot("replay-fleet-drill.png")
    # warnings and problems: the record left out, the run cut short
    problems = browser.evaluate(column("problems", 0))
    assert problems == [f"{folder / 'odd.jsonl'}:5"]
    warned = browser.evaluate(column("warned-table", 0))
    assert warned == ["live", "odd"]
    # charts: labels inside their chart, one colour per series, ticks on the axes
    for chart in browser.evaluate(CHART_CHECKS):
        assert chart["outside"] == [] and chart["mismatched"] == 0, chart
        assert chart["ticks"] >= 3, chart
    points = browser.evaluate(
        "Array.from(document.querySelectorAll('circle.point'))"
        ".map(p => [p.dataset.label, p.dataset.dead])"
    )
    assert points == [["block=3 stop=6", "false"], ["block=6 stop=6", "true"]]
    browser.evaluate("window.scrollTo(0, 0)")
    browser.screenshot("replay-fleet.png")


def test_the_fleet_page_without_labels(browser: Browser, tmp_path: Path) -> None:
    """No outcome labels: every run the ladder interferes with is listed, and the sweep
    chart compares the ladders on all runs (bars, not a scatter with every point at 0)."""
    from test_replay import write_lines
    from test_replay_formats import chat

    folder = tmp_path / "runs"
    folder.mkdir()
    for name, results in (("loop", ["same"] * 3), ("ok", ["x"])):
        write_lines(folder / f"{name}.jsonl", chat(results))
    page = tmp_path / "fleet.html"
    arguments = [str(folder), "--html", str(page), "--sweep", "block=3|4", "--progress", "none"]
    assert main(["replay", *arguments]) == 0
    browser.goto(page.as_uri())
    browser.wait("document.querySelector('#run-table tbody tr') !== null")
    heading = browser.evaluate("document.querySelector('#interfered h2').textContent")
    assert heading == "Runs this ladder would interfere with (no outcome labels)"
    listed = browser.evaluate(
        "Array.from(document.querySelectorAll('#interfered-table a')).map(a => a.dataset.run)"
    )
    assert listed == ["loop"]
    bars = browser.evaluate(
        "Array.from(document.querySelectorAll('#sweep-chart rect.bar'))"
        ".map(b => [b.dataset.category, b.dataset.series, b.dataset.value])"
    )
    assert ["block=3", "runs interfered with", "50"] in bars
    assert ["block=4", "runs interfered with", "0"] in bars
    assert browser.evaluate("document.querySelectorAll('circle.point').length") == 0
