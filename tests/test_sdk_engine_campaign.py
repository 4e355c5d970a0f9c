"""A bounded, seeded campaign of engine scenarios against the SDK's run loop (issue 30).

Runs when ``../shared/sdk`` (the SDK's bundles and its protocol harness) is beside
the checkout, and is skipped otherwise: a port author's repository has no such
folder. Every difference class the campaigns found is decided (adopted, or outside
the domain by ENG-151, where the campaign does not compare), so the campaign must
find no difference: one fails the test with its scenario. The long
campaign is ``make engine-campaign`` (benchmarks/engine_campaign.py).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from doomloop_kit.conformance import campaign, cli
from doomloop_kit.generators import fuzz_families
from harnesses import support

SDK = support.REPO.parent / "shared" / "sdk"
HARNESS = SDK / "sdk-engine-harness.mjs"
COMMAND = f"DOOMLOOP_KIT={shlex.quote(str(support.REPO))} node {shlex.quote(str(HARNESS))}"
SEED = 20263003
SCENARIOS = 280

pytestmark = pytest.mark.skipif(
    not HARNESS.is_file(),
    reason=f"no SDK here ({HARNESS} is missing): the campaign needs the SDK's run loop",
)


def test_the_sdk_campaign_finds_no_difference_inside_the_domain() -> None:
    plan = campaign.chunks(fuzz_families.ENGINE_FAMILIES, [SEED], SCENARIOS)
    report = campaign.run_campaign(COMMAND, plan, shrink=False)
    print(campaign.summary(report))
    assert report["scenarios"] == SCENARIOS
    assert report["compared"] >= SCENARIOS * 0.9, report["families"]
    new = [entry for entry in report["classes"] if not entry["known"]]
    shown = "\n".join(
        f"{entry['key']} ({entry['count']}): {entry['where']}: {entry['reason']}\n"
        f"  {json.dumps(entry['scenario'], ensure_ascii=True)}"
        for entry in new
    )
    assert not new, f"differences of no known class:\n{shown}"
    assert report["classes"] == []  # and none of a known class: none is left undecided


def test_the_typescript_engine_agrees_with_the_sdk_under_fuzz(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``fuzz --against`` runs engine scenarios: the in-tree TypeScript engine against the
    SDK's run loop on the committed resume family, which no outside-the-domain rule reaches."""
    typescript = f"node {shlex.quote(str(support.REPO / 'ports/typescript/dist/harness.js'))}"
    status = cli.main(
        [
            "conformance",
            "fuzz",
            "--port",
            typescript,
            "--against",
            COMMAND,
            "--family",
            "engine-resume",
            "--examples",
            "12",
            "--seed",
            "4",
            "--out",
            str(tmp_path),
        ]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    assert "engine-resume: 12 transcripts agree" in out
