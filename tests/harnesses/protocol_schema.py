"""spec/schema/protocol/ loaded once: a validator for any of its definitions."""

from __future__ import annotations

import functools
import json

import jsonschema
from referencing import Registry, Resource

from .support import REPO

SCHEMAS = REPO / "spec" / "schema" / "protocol"
BASE = "https://doomloop-kit.invalid/schema/protocol/"


def _registry() -> Registry:
    resources = []
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        assert document["$id"] == BASE + path.name
        resources.append((document["$id"], Resource.from_contents(document)))
    return Registry().with_resources(resources)


REGISTRY = _registry()


@functools.cache
def validator(ref: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({"$ref": BASE + ref}, registry=REGISTRY)


def definitions(name: str) -> dict[str, object]:
    """The ``$defs`` of ``<name>.schema.json``."""
    defs: dict[str, object] = json.loads((SCHEMAS / f"{name}.schema.json").read_text())["$defs"]
    return defs
