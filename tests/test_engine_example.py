"""Spec §15.8 shows the worked example as parts of a vector; §15.9 names vector families.

Every JSON block of ``spec/15-engine-8-example.md`` preceded by
``<!-- example: /json/pointer -->`` must equal that part of the vector
``engine-example/worked-example-…``, so the page cannot drift from the vector
the runner judges ports with; and every family the porter's path names must
exist.
"""

from __future__ import annotations

import json
import re
from typing import Any

from harnesses import support

PAGE = support.REPO / "spec" / "15-engine-8-example.md"
VECTOR_FILE = support.COMMITTED / "curated" / "engine-example.json"
BLOCK = re.compile(r"<!-- example: (\S+) -->\n```json\n(.*?)\n```", re.DOTALL)


def _vector() -> dict[str, Any]:
    (vector,) = json.loads(VECTOR_FILE.read_text(encoding="utf-8"))["vectors"]
    assert vector["id"].startswith("engine-example/worked-example-")
    return dict(vector)


def _at(value: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        value = value[int(token)] if isinstance(value, list) else value[token]
    return value


def _mismatches(page: str) -> list[str]:
    """The pointers whose block differs from the vector (empty when the page is right)."""
    vector = _vector()
    return [
        pointer for pointer, text in BLOCK.findall(page) if json.loads(text) != _at(vector, pointer)
    ]


def test_every_example_block_is_part_of_the_vector() -> None:
    page = PAGE.read_text(encoding="utf-8")
    blocks = BLOCK.findall(page)
    assert len(blocks) >= 8, "the page shows the scenario, the order and the key members"
    assert page.count("<!-- example:") == len(blocks), "a marker without its JSON block"
    assert {"/scenario", "/expect/order"} <= {pointer for pointer, _ in blocks}
    assert _mismatches(page) == []


def test_a_block_that_drifts_from_the_vector_is_found() -> None:
    page = PAGE.read_text(encoding="utf-8")
    drifted = page.replace(
        '"reason": "complete", "finalResponseId": "resp_4"',
        '"reason": "doom_loop", "finalResponseId": "resp_4"',
    )
    assert drifted != page
    assert _mismatches(drifted) == ["/expect/result/runs/0/end"]


def test_the_porters_path_names_existing_families() -> None:
    page = PAGE.read_text(encoding="utf-8")
    path = page[page.index("## 15.9") :]
    named = set(re.findall(r"`(engine-[a-z-]+)`", path))
    manifest = json.loads((support.COMMITTED / "manifest.json").read_text(encoding="utf-8"))
    families = {entry["family"] for entry in manifest["files"]}
    engine_families = {family for family in families if family.startswith("engine-")}
    assert named <= families, named - families
    assert named == engine_families, "every engine family has a place on the path"
