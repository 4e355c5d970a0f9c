"""Small builders for scenario data: output items, turns, runs (ENG-16).

They shorten the scenario tables of this package, and the engine strategies
(:mod:`doomloop_kit.generators.engine_families`) draw with them too; every
builder returns plain JSON, the form a vector will store.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

Json = object
JsonObject = dict[str, object]
"""A JSON object: a scenario, a response, an item or a fact."""


def text(content: str) -> JsonObject:
    """An assistant message item with one ``output_text`` part."""
    return {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": content}],
    }


def call(name: str, arguments: Mapping[str, Json] | str, call_id: str) -> JsonObject:
    """A ``function_call`` item; a string is taken as the raw argument text."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, separators=(",", ":"))
    return {"type": "function_call", "name": name, "arguments": raw, "callId": call_id}


def turn(*items: Mapping[str, Json]) -> JsonObject:
    """One scripted response."""
    return {"output": [dict(item) for item in items]}


def repeated_calls(name: str, arguments: Mapping[str, Json] | str, turns: int) -> list[JsonObject]:
    """``turns`` responses, each one identical call (fresh call ids)."""
    return [turn(call(name, arguments, f"call_{i + 1}")) for i in range(turns)]


def fresh(model: Sequence[Json], user: str = "go", **options: Json) -> JsonObject:
    """A fresh turn with new user input."""
    return {"input": user, "model": list(model), **options}


def decide(
    model: Sequence[Json], approve: Sequence[str] = (), reject: Sequence[str] = ()
) -> JsonObject:
    """A decision resume."""
    return {"approve": list(approve), "reject": list(reject), "model": list(model)}


def scenario(
    brief: str,
    title: str,
    spec: Sequence[str],
    facts: Sequence[Mapping[str, Json]],
    *,
    runs: Sequence[Json],
    tools: Sequence[Json] = (),
    variant: str | None = None,
    rule: str | None = None,
    **options: Json,
) -> JsonObject:
    """A brief scenario: its id, the statements it cites, the input, and the facts it pins;
    ``rule``, when given, names the brief's section it pins."""
    name = brief if variant is None else f"{brief}/{variant}"
    entry: JsonObject = {
        "brief": brief,
        "title": title,
        "spec": list(spec),
        "facts": [dict(fact) for fact in facts],
        "scenario": {"id": name, "tools": list(tools), "runs": list(runs), **options},
    }
    return entry if rule is None else {**entry, "rule": rule}
