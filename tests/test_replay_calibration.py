"""The calibration script, on fixtures laid out like ``../shared/realruns``.

The test suite reads no real run (the committed figures come from the
script run on them: docs/guide/calibration.md); here the script must turn
a tau-bench file and mini-swe-agent trajectories with ``outcomes.json`` into
the page's three figures, with no path in them, and without the runs it
must say so and change nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doomloop_kit.replay import calibration
from test_replay_formats import mini_swe_agent, tau_bench


def realruns(tmp_path: Path) -> Path:
    root = tmp_path / "realruns"
    tau = root / calibration.TAU_BENCH
    trajs = root / calibration.MINI_SWE_AGENT / "trajs"
    tau.mkdir(parents=True)
    trajs.mkdir(parents=True)
    (tau / "airline.json").write_text(json.dumps(tau_bench(["same"] * 3), indent=1))
    for name, results in (("a__a-1", ["E"] * 4), ("b__b-2", ["1", "2"])):
        trajectory = json.dumps(mini_swe_agent(results), indent=1)
        (trajs / f"{name}.traj.json").write_text(trajectory, encoding="utf-8")
    labels = {"a__a-1": {"resolved": False}, "b__b-2": {"resolved": True}}
    (root / calibration.MINI_SWE_AGENT / "outcomes.json").write_text(json.dumps(labels))
    return root


def test_the_script_writes_the_three_figures(tmp_path: Path) -> None:
    figures = tmp_path / "figures"
    assert calibration.main([str(realruns(tmp_path)), str(figures)]) == 0
    assert sorted(p.name for p in figures.iterdir()) == ["fleet.html", "summary.txt", "sweep.txt"]
    summary = (figures / "summary.txt").read_text(encoding="utf-8")
    assert summary.startswith("fleet: 4 runs in 3 files (mini-swe-agent 2, tau-bench 2)")
    sweep = (figures / "sweep.txt").read_text(encoding="utf-8").splitlines()
    # block at 3: the failed loops (tau 7.0, a__a-1) are caught; no successful run is
    # touched; columns: all runs interfered, stopped; success interfered, stopped; failure
    # caught, stopped
    cells = sweep[2].split()
    assert cells[:5] == ["block=3", "2", "(50.0%)", "0", "(0.0%)"]
    assert cells[5:7] == ["0", "(0.0%)"] and cells[9:11] == ["2", "(100.0%)"]
    assert [line.split()[0] for line in sweep[2:]] == [
        "block=3",
        "block=4",
        "block=5",
        "block=false",
    ]
    for name in ("summary.txt", "sweep.txt", "fleet.html"):
        assert str(tmp_path) not in (figures / name).read_text(encoding="utf-8")


def test_without_the_runs_nothing_is_regenerated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "figures"
    assert calibration.main([str(tmp_path / "absent"), str(folder)]) == 1
    assert "the shared real runs are not there; nothing regenerated" in capsys.readouterr().err
    assert not folder.exists()


def test_the_figures_quote_no_text_of_the_runs(tmp_path: Path) -> None:
    """A repetition verdict's message quotes the repeated block: the docs' figures, built
    from real runs, cut it out (the kit never commits text of those runs)."""
    root = realruns(tmp_path)
    trajectory = mini_swe_agent(["E"])
    phrase = "the quoted secret of a real run "
    trajectory["messages"][2]["content"] = "THOUGHT: " + phrase * 16 + "\n\n```bash\nls\n```"
    trajs = root / calibration.MINI_SWE_AGENT / "trajs"
    (trajs / "c__c-3.traj.json").write_text(json.dumps(trajectory), encoding="utf-8")
    figures = tmp_path / "figures"
    assert calibration.main([str(root), str(figures)]) == 0
    page = (figures / "fleet.html").read_text(encoding="utf-8")
    assert 'the response repeats \\"…\\" ' in page  # the verdict is there, its quote is not
    for name in ("summary.txt", "sweep.txt", "fleet.html"):
        assert "quoted secret" not in (figures / name).read_text(encoding="utf-8")
