"""spec/schema/protocol/ and spec/schema/engine/ loaded once: a validator for any definition."""

from __future__ import annotations

import functools
import json
from typing import Any

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


def response_validator(op: str) -> jsonschema.Draft202012Validator:
    return validator(f"response.schema.json#/$defs/{op}")


FAMILIES = {
    name.removesuffix("Request"): family
    for family in ("handshake", "session", "monitor", "functions", "engine")
    for name in json.loads((SCHEMAS / f"{family}.schema.json").read_text())["$defs"]
    if name.endswith("Request")
}


def check_traffic(requests: list[dict[str, Any]], responses: list[dict[str, Any]]) -> set[str]:
    """Validate every line; pair responses to requests by id. Returns the ops seen.

    Requests go to their op's definition directly (the same check as
    request.schema.json, which dispatches on op, but much faster); messages
    that differ only in id or session id are validated once.
    """
    assert len(responses) == len(requests)
    seen: set[str] = set()
    ops: set[str] = set()
    for request, response in zip(requests, responses, strict=True):
        assert response["id"] == request["id"]
        op = request["op"]
        ops.add(op)
        key = json.dumps(
            [{**request, "id": 1, "session": "s"}, {**response, "id": 1}], sort_keys=True
        )
        if key in seen:
            continue
        seen.add(key)
        validator(f"{FAMILIES[op]}.schema.json#/$defs/{op}Request").validate(request)
        response_validator(op).validate(response)
    for request in requests[:200]:  # the dispatching schema agrees
        validator("request.schema.json").validate(request)
    return ops
