"""The calibration page's figures are what the calibration script makes of the real runs.

With ``../shared/realruns`` present (the kit's machines and CI have it), the
committed figures must equal a fresh replay of the runs; without it, the
script must say so and change nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from doomloop_kit.replay import calibration

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "docs" / "guide" / "calibration"
REALRUNS = ROOT.parent / "shared" / "realruns"


def test_the_committed_figures_are_current() -> None:
    if not (REALRUNS / calibration.TAU_BENCH).is_dir():
        pytest.fail(f"{REALRUNS} is missing: the calibration cannot be checked")
    expected = calibration.outputs(REALRUNS)
    assert sorted(p.name for p in FIGURES.iterdir()) == sorted(expected)
    for name, text in expected.items():
        assert (FIGURES / name).read_text(encoding="utf-8") == text, (
            f"{name} is stale: python -m doomloop_kit.replay.calibration {REALRUNS} {FIGURES}"
        )
    assert "350 runs in 151 files" in expected["summary.txt"]


def test_without_the_runs_nothing_is_regenerated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "figures"
    assert calibration.main([str(tmp_path / "absent"), str(folder)]) == 1
    assert "the shared real runs are not there; nothing regenerated" in capsys.readouterr().err
    assert not folder.exists()
