"""``doomloop-kit --version``: what this installation is made of.

The kit's version, the version of the specification it implements, the
protocol version, and the vector set it ships (format, generator version,
count, and the sha256 of its manifest, which names the sha256 of every file).
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata

from doomloop_kit.vectorset import resources
from doomloop_kit.vectorset.files import MANIFEST_NAME

from .protocol import PROTOCOL_REVISION, PROTOCOL_VERSION


def version_text() -> str:
    try:
        kit = metadata.version("doomloop-kit")
    except metadata.PackageNotFoundError:  # pragma: no cover - not installed
        kit = "0+unknown"
    lines = [f"doomloop-kit {kit}", f"specification {resources.spec_version()}"]
    lines.append(f"protocol {PROTOCOL_VERSION} (revision {PROTOCOL_REVISION})")
    raw = (resources.vectors_root() / MANIFEST_NAME).read_bytes()
    manifest = json.loads(raw)
    lines.append(
        f"vector set: format {manifest['format']}, generator {manifest['generatorVersion']}, "
        f"{manifest['vectors']} vectors, manifest sha256 {hashlib.sha256(raw).hexdigest()}"
    )
    return "\n".join(lines)
