"""The SDK's recorded answers, read (spec/protocol.md PROT-25).

Each line of an observations (``.jsonl``) or corpus (``.jsonl.gz``) file holds
a request sent to the SDK 0.9.0 behind the kit's TypeScript harness, the
request line exactly as sent, and the answer the SDK gave.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from doomloop_kit.jsvalue import wire


@dataclass(frozen=True)
class Line:
    """One recorded request and the SDK's answer."""

    number: int
    klass: str
    request: Any
    """The request as JSON data (for a deep request, its members but a null value)."""
    raw: str
    """The request line exactly as sent to the SDK."""
    sdk: Mapping[str, Any]


_TRUNCATED: Final = re.compile(r"\u2026\((\d+) chars\)$")
_NESTED: Final = re.compile(r"^\((\d+) nested arrays around (\S+);")


def tag_non_finite(value: Any) -> Any:
    """The corpus writes NaN and +/-Infinity as bare literals (not JSON); on the
    wire they travel as their tags (PROT-04, PROT-05)."""
    if isinstance(value, float) and not math.isfinite(value):
        return wire.encode(value)
    if isinstance(value, list):
        return [tag_non_finite(item) for item in value]
    if isinstance(value, dict):
        return {key: tag_non_finite(member) for key, member in value.items()}
    return value


def _raw_request(record: Mapping[str, Any]) -> str:
    """The request line: ``request_raw`` when given (rebuilding the one abridged
    deep-nesting line from its description), else the request as JSON."""
    raw = record.get("request_raw")
    if not isinstance(raw, str):
        return json.dumps(tag_non_finite(record["request"]), allow_nan=False)
    cut = _TRUNCATED.search(raw)
    if cut is None:
        return raw
    nested = _NESTED.match(str(record["request"]))
    if nested is None:
        raise ValueError(f"cannot rebuild an abridged request: {record['request']!r}")
    depth, atom = int(nested.group(1)), nested.group(2)
    prefix = raw[: raw.index("[")]
    rebuilt = prefix + "[" * depth + atom + "]" * depth + "}"
    if len(rebuilt) != int(cut.group(1)):
        raise ValueError("the rebuilt request does not have the recorded length")
    return rebuilt


def read_lines(path: Path) -> list[Line]:
    """Every line of an observations (``.jsonl``) or corpus (``.jsonl.gz``) file."""
    opener = gzip.open if path.suffix == ".gz" else open
    lines = []
    with opener(path, "rt", encoding="utf-8") as stream:
        for number, text in enumerate(stream, start=1):
            if text.strip():
                record = json.loads(text)
                raw = _raw_request(record)
                request = record["request"]
                if not isinstance(request, Mapping):  # abridged: its members up to the value
                    request = json.loads(raw[: raw.index("[")] + "null}")
                lines.append(Line(number, record["class"], request, raw, record["sdk"]))
    return lines
