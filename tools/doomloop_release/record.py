"""The release record: what a release promised, kept in ``releases/<version>.json``.

A record names the versions a release tied together (kit, specification,
protocol, vector set) and the two things that must never change meaning
afterwards: every statement id with its status (``active`` or ``withdrawn``),
and a digest of every vector. The next release is checked against the record
of the previous one (:mod:`.ledger`). Records are committed data: they survive
shallow clones and are reviewed like any other change.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doomloop_docs import spec

RECORD_FORMAT = 1
ACTIVE = "active"
WITHDRAWN = "withdrawn"
_PROTOCOL = re.compile(r"^PROTOCOL_VERSION\b[^=]*=\s*(\d+)", re.M)
_SPEC_VERSION = re.compile(r"^Version:\s*\**([^*\s]+)", re.M)


class RecordError(ValueError):
    """A checkout or a record file cannot be read as a release."""


@dataclass(frozen=True)
class VectorSetVersion:
    """The version of the vector set: its file format and its generator version.

    A released vector may change only under a new vector-set version."""

    format: int
    generator: str

    def __str__(self) -> str:
        return f"format {self.format}, generator {self.generator}"


@dataclass
class Record:
    release: str
    specification: str
    protocol: int
    vector_set: VectorSetVersion
    manifest_sha256: str
    statements: dict[str, str] = field(default_factory=dict)
    """Statement id -> ``active`` or ``withdrawn``."""
    vectors: dict[str, str] = field(default_factory=dict)
    """Vector id -> sha256 of the vector (:func:`vector_digest`)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "recordFormat": RECORD_FORMAT,
            "release": self.release,
            "specification": self.specification,
            "protocol": self.protocol,
            "vectorSet": {
                "format": self.vector_set.format,
                "generatorVersion": self.vector_set.generator,
                "manifestSha256": self.manifest_sha256,
            },
            "statements": dict(sorted(self.statements.items())),
            "vectors": dict(sorted(self.vectors.items())),
        }

    def dumps(self) -> bytes:
        return (json.dumps(self.to_json(), indent=1, ensure_ascii=True) + "\n").encode()


def vector_digest(vector: Any) -> str:
    """sha256 of a vector's JSON with sorted members: changes when any of it changes."""
    text = json.dumps(vector, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def spec_version(root: Path) -> str:
    """The version on the first page of the specification (``Version: **x**``)."""
    match = _SPEC_VERSION.search((root / "spec" / "README.md").read_text(encoding="utf-8"))
    if match is None:
        raise RecordError("spec/README.md states no `Version:`")
    return match.group(1)


def protocol_version(root: Path) -> int:
    match = _PROTOCOL.search(
        (root / "conformance" / "protocol" / "messages.py").read_text(encoding="utf-8")
    )
    if match is None:
        raise RecordError("conformance/protocol/messages.py defines no PROTOCOL_VERSION")
    return int(match.group(1))


def statements(root: Path) -> tuple[dict[str, str], list[str]]:
    """Every statement id of spec/ with its status, and the ids defined twice."""
    index = spec.parse(root / "spec")
    found = {sid: WITHDRAWN if s.withdrawn else ACTIVE for sid, s in index.statements.items()}
    return found, [d.split(" ", 1)[0] for d in index.duplicates]


def vectors(root: Path) -> tuple[VectorSetVersion, str, dict[str, str]]:
    """The vector set of ``root/vectors``: version, manifest sha256, vector digests."""
    folder = root / "vectors"
    raw = (folder / "manifest.json").read_bytes()
    manifest = json.loads(raw)
    version = VectorSetVersion(int(manifest["format"]), str(manifest["generatorVersion"]))
    digests: dict[str, str] = {}
    for entry in manifest["files"]:
        data = json.loads((folder / entry["path"]).read_bytes())
        for vector in data["vectors"]:
            digests[str(vector["id"])] = vector_digest(vector)
    return version, hashlib.sha256(raw).hexdigest(), digests


def of_checkout(root: Path, release: str) -> tuple[Record, list[str]]:
    """The record a release of ``root`` would write, and its statement ids defined twice."""
    found, duplicates = statements(root)
    vector_set, manifest_sha256, digests = vectors(root)
    record = Record(
        release=release,
        specification=spec_version(root),
        protocol=protocol_version(root),
        vector_set=vector_set,
        manifest_sha256=manifest_sha256,
        statements=found,
        vectors=digests,
    )
    return record, duplicates


def load(path: Path) -> Record:
    try:
        data = json.loads(path.read_bytes())
        if data.get("recordFormat") != RECORD_FORMAT:
            raise RecordError(f"{path}: unknown recordFormat {data.get('recordFormat')!r}")
        vector_set = data["vectorSet"]
        return Record(
            release=str(data["release"]),
            specification=str(data["specification"]),
            protocol=int(data["protocol"]),
            vector_set=VectorSetVersion(
                int(vector_set["format"]), str(vector_set["generatorVersion"])
            ),
            manifest_sha256=str(vector_set["manifestSha256"]),
            statements={str(k): str(v) for k, v in data["statements"].items()},
            vectors={str(k): str(v) for k, v in data["vectors"].items()},
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        if isinstance(error, RecordError):
            raise
        raise RecordError(f"{path}: not a release record ({error})") from error
