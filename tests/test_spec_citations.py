"""The reference cites spec statements by exact id, and only ids the spec defines.

A statement id is defined in spec/*.md as ``<a id="MON-07"></a>``. Every
token of the reference's source that looks like a statement id (an upper-case
prefix, a hyphen, digits or ``*``) must be one of them; names such as UTF-16
or SHA-256 are not statement ids.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOT_STATEMENTS = {"UTF", "SHA", "IEEE", "RFC", "ISO", "ECMA"}
_DEFINED = re.compile(r'<a id="([A-Z]+-\d+)"></a>')
_CITED = re.compile(r"\b([A-Z]{2,6})-(\d+|\*)")


def defined_ids() -> set[str]:
    return {
        match.group(1)
        for path in (REPO / "spec").glob("*.md")
        for match in _DEFINED.finditer(path.read_text(encoding="utf-8"))
    }


def citations(path: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for match in _CITED.finditer(line):
            if match.group(1) not in NOT_STATEMENTS:
                found.append((number, match.group(0)))
    return found


def test_the_spec_defines_statement_ids() -> None:
    assert {"MON-07", "CAN-26", "STATE-21"} <= defined_ids()


def test_reference_cites_only_defined_exact_ids() -> None:
    defined = defined_ids()
    wrong = [
        f"{path.relative_to(REPO)}:{number}: {cited}"
        for path in sorted((REPO / "reference").glob("*.py"))
        for number, cited in citations(path)
        if cited not in defined
    ]
    assert wrong == []


def test_a_wildcard_or_unknown_id_is_caught(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""Text (MON-*), (MON-07), (NOPE-01), UTF-16."""\n', encoding="utf-8")
    defined = defined_ids()
    assert [c for _, c in citations(sample) if c not in defined] == ["MON-*", "NOPE-01"]
