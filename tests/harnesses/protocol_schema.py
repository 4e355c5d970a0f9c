"""spec/schema/protocol/ and spec/schema/engine/ loaded once: a validator for any definition."""

from __future__ import annotations

import functools
import json

import jsonschema
from referencing import Registry, Resource

from .support import REPO

SCHEMA_ROOT = REPO / "spec" / "schema"
SCHEMAS = SCHEMA_ROOT / "protocol"
ENGINE_SCHEMAS = SCHEMA_ROOT / "engine"
BASE = "https://doomloop-kit.invalid/schema/protocol/"
ENGINE_BASE = "https://doomloop-kit.invalid/schema/engine/"


def _registry() -> Registry:
    resources = []
    for folder, base in ((SCHEMAS, BASE), (ENGINE_SCHEMAS, ENGINE_BASE)):
        for path in sorted(folder.glob("*.schema.json")):
            document = json.loads(path.read_text(encoding="utf-8"))
            assert document["$id"] == base + path.name
            resources.append((document["$id"], Resource.from_contents(document)))
    return Registry().with_resources(resources)


REGISTRY = _registry()


@functools.cache
def validator(ref: str) -> jsonschema.Draft202012Validator:
    """A validator for ``ref`` under spec/schema/protocol/ (``engine.schema.json#/$defs/x``)."""
    return jsonschema.Draft202012Validator({"$ref": BASE + ref}, registry=REGISTRY)


@functools.cache
def engine_validator(name: str) -> jsonschema.Draft202012Validator:
    """A validator for spec/schema/engine/<name>.schema.json (``scenario``, ``transcript``)."""
    return jsonschema.Draft202012Validator(
        {"$ref": f"{ENGINE_BASE}{name}.schema.json"}, registry=REGISTRY
    )


def definitions(name: str) -> dict[str, object]:
    """The ``$defs`` of ``<name>.schema.json``."""
    defs: dict[str, object] = json.loads((SCHEMAS / f"{name}.schema.json").read_text())["$defs"]
    return defs
