"""The replay's HTML page in headless Chromium: it draws the plot, offline.

Reuses the DevTools driver of tests/test_docs_browser.py. The page is opened
from a file: URL with nothing served, so a plot can only come from the page
itself. The expected counts follow from the example (six rounds of one
3-call set under the default ladder: verdicts at rounds 2 to 6, brief
section 7), not from the page's code.
"""

from __future__ import annotations

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


def test_the_fleet_page_draws_its_charts_offline(browser: Browser, tmp_path: Path) -> None:
    """The fleet page: inline SVG only; the bars carry the fixture corpus's shares."""
    from test_replay_fleet import corpus, outcomes

    folder, page = corpus(tmp_path), tmp_path / "fleet.html"
    arguments = [str(folder), "--outcomes", str(outcomes(tmp_path)), "--html", str(page)]
    assert main(["replay", *arguments, "--sweep", "block=3|4|false", "--progress", "none"]) == 2
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text and not re.search(r"\s(src|href)\s*=", text)
    browser.goto(page.as_uri())
    browser.wait("document.querySelectorAll('figure.chart svg').length >= 3")
    bar = browser.evaluate(
        "(() => { const b = document.querySelector("
        '\'rect.bar[data-category="block"][data-series="success"]\');'
        " const r = b.getBoundingClientRect(); return [b.dataset.value, r.width, r.height]; })()"
    )
    assert bar[0] == "33.3" and bar[1] > 0 and bar[2] > 0  # 1 of the 3 successful runs
    failure = browser.evaluate(
        'document.querySelector(\'rect.bar[data-category="block"][data-series="failure"]\')'
        ".dataset.value"
    )
    assert failure == "100"  # both failed runs are loops that reach block
    points = browser.evaluate(
        "Array.from(document.querySelectorAll('circle.point')).map(p => p.dataset.label)"
    )
    assert points == ["block=3", "block=4", "block=false"]
    rows = browser.evaluate("document.querySelectorAll('#sweep tbody tr').length")
    assert rows == 3
    browser.screenshot("replay-fleet.png")
