"""The facts an engine scenario pins, checked against a transcript's JSON form.

A fact is data: ``{"kind": ..., "run": index, ...}``. :func:`check_fact`
raises :class:`FactFailure` with a readable reason when the transcript does
not show it. Facts read only the JSON transcript (ENG-156) and, for the kind
``order``, the partial order stored beside it (ENG-139), so the same check
serves the reference engine today and a port's transcript later.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import cast

Json = object
FactCheck = Callable[[Mapping[str, Json], Mapping[str, Json]], None]


class FactFailure(AssertionError):
    """The transcript does not show the fact."""


def _expect(condition: bool, fact: Mapping[str, Json], detail: str) -> None:
    if not condition:
        raise FactFailure(f"{json.dumps(fact)}: {detail}")


def pointer(value: Json, path: str) -> Json:
    """JSON Pointer lookup; ``-1`` picks the last element. Raises KeyError when absent."""
    for token in [part for part in path.split("/")[1:]]:
        if isinstance(value, list):
            value = value[int(token)]
        elif isinstance(value, Mapping) and token in value:
            value = value[token]
        else:
            raise KeyError(path)
    return value


def _has(value: Json, subset: Mapping[str, Json]) -> bool:
    return isinstance(value, Mapping) and all(
        name in value and value[name] == expected for name, expected in subset.items()
    )


def _run(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> Mapping[str, Json]:
    runs = cast(Sequence[Mapping[str, Json]], transcript["runs"])
    return runs[cast(int, fact.get("run", 0))]


def _detections(
    run: Mapping[str, Json], fact: Mapping[str, Json] | None = None
) -> list[Mapping[str, Json]]:
    """The ``DoomLoopDetected`` payloads, of one ``detector`` when the fact names one."""
    events = cast(Sequence[Mapping[str, Json]], run["events"])
    detector = None if fact is None else fact.get("detector")
    payloads = [
        cast(Mapping[str, Json], event["payload"])
        for event in events
        if event["hook"] == "DoomLoopDetected"
    ]
    return [p for p in payloads if detector is None or p["detector"] == detector]


def _dispatch(run: Mapping[str, Json], fact: Mapping[str, Json]) -> Mapping[str, Json]:
    dispatches = cast(Sequence[Mapping[str, Json]], run["dispatches"])
    return cast(Mapping[str, Json], dispatches[cast(int, fact["dispatch"])]["request"])


def _items(request: Mapping[str, Json], kind: str) -> list[Mapping[str, Json]]:
    return [
        item
        for item in cast(Sequence[Mapping[str, Json]], request["input"])
        if item.get("type") == kind or (kind == "user" and item.get("role") == "user")
    ]


def _paired(items: Sequence[Mapping[str, Json]]) -> bool:
    """Every ``function_call`` has a ``function_call_output`` with its call id."""
    answered = {item.get("callId") for item in items if item.get("type") == "function_call_output"}
    return all(
        item.get("callId") in answered for item in items if item.get("type") == "function_call"
    )


def _compare(value: Json, fact: Mapping[str, Json], found: bool) -> None:
    """The shared comparisons of located values: equals, has, absent, length, contains."""
    if "absent" in fact:
        _expect(not found, fact, f"present: {value!r}")
        return
    if not found and set(fact) & {"equals", "has", "lacks", "length", "contains"} == set():
        return  # only notHas asked: an absent value has nothing
    _expect(found, fact, "absent")
    if "equals" in fact:
        _expect(value == fact["equals"], fact, f"found {value!r}")
    if "has" in fact:
        _expect(_has(value, cast(Mapping[str, Json], fact["has"])), fact, f"found {value!r}")
    if "notHas" in fact:
        subset = cast(Mapping[str, Json], fact["notHas"])
        _expect(not _has(value, subset), fact, f"found {value!r}")
    if "lacks" in fact:
        names = cast(list[str], fact["lacks"])
        _expect(isinstance(value, Mapping) and not set(names) & set(value), fact, f"{value!r}")
    if "length" in fact:
        _expect(isinstance(value, list) and len(value) == fact["length"], fact, f"{value!r}")
    if "contains" in fact:
        _expect(str(fact["contains"]) in str(value), fact, f"found {value!r}")


def _located(root: Json, fact: Mapping[str, Json]) -> None:
    try:
        value, found = pointer(root, cast(str, fact.get("at", ""))), True
    except (KeyError, IndexError):
        value, found = None, False
    _compare(value, fact, found)


def _detections_fact(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    found = [
        [payload["action"], payload["streak"]]
        for payload in _detections(_run(transcript, fact), fact)
    ]
    _expect(found == fact["equals"], fact, f"found {found}")


def _detections_include(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    found = [
        [payload["action"], payload["streak"]]
        for payload in _detections(_run(transcript, fact), fact)
    ]
    position = 0
    for wanted in cast(list[Json], fact["inOrder"]):
        while position < len(found) and found[position] != wanted:
            position += 1
        _expect(position < len(found), fact, f"found {found}")
        position += 1


def _detection(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    payloads = _detections(_run(transcript, fact), fact)
    if "count" in fact:
        _expect(len(payloads) == fact["count"], fact, f"found {len(payloads)}")
    if "index" in fact:
        index = cast(int, fact["index"])
        found = -len(payloads) <= index < len(payloads)
        _compare(payloads[index] if found else None, fact, found)
    if "everyMessageContains" in fact:
        text = cast(str, fact["everyMessageContains"])
        _expect(bool(payloads) and all(text in str(p["message"]) for p in payloads), fact, "")
    if "everyHas" in fact:
        subset = cast(Mapping[str, Json], fact["everyHas"])
        _expect(bool(payloads) and all(_has(p, subset) for p in payloads), fact, f"{payloads}")


def _applied(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    """The applied action of each ``DoomLoopDetected`` event, in order (ENG-98)."""
    events = cast(Sequence[Mapping[str, Json]], _run(transcript, fact)["events"])
    found = [event.get("appliedAction") for event in events if event["hook"] == "DoomLoopDetected"]
    _expect(found == fact["equals"], fact, f"found {found}")


def _dispatches(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    dispatches = cast(Sequence[Mapping[str, Json]], _run(transcript, fact)["dispatches"])
    if "count" in fact:
        _expect(len(dispatches) == fact["count"], fact, f"found {len(dispatches)}")
    models = [cast(Mapping[str, Json], d["request"])["model"] for d in dispatches]
    if "models" in fact:
        _expect(models == fact["models"], fact, f"found {models}")
    if "kinds" in fact:
        kinds = [d["kind"] for d in dispatches]
        _expect(kinds == fact["kinds"], fact, f"found {kinds}")
    if "modelCount" in fact:
        wanted = cast(Mapping[str, Json], fact["modelCount"])
        _expect(models.count(wanted["model"]) == wanted["equals"], fact, f"found {models}")


def _request(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    _located(_dispatch(_run(transcript, fact), fact), fact)


def _advisor(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    tools = cast(
        Sequence[Mapping[str, Json]], _dispatch(_run(transcript, fact), fact).get("tools", [])
    )
    advisors = [tool for tool in tools if tool.get("type") == "openrouter:advisor"]
    if fact.get("present") is False:
        _expect(not advisors, fact, f"found {advisors}")
        return
    _expect(len(advisors) == 1, fact, f"found {advisors}")
    parameters = cast(Mapping[str, Json], advisors[0].get("parameters", {}))
    _expect(_has(parameters, cast(Mapping[str, Json], fact.get("has", {}))), fact, f"{parameters}")
    if "instructionsContain" in fact:
        text = str(parameters.get("instructions"))
        _expect(cast(str, fact["instructionsContain"]) in text, fact, f"found {text!r}")


def _tool_outputs(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    """Outputs in one dispatch's input (``dispatch``) or in the persisted messages."""
    run = _run(transcript, fact)
    if "dispatch" in fact:
        outputs = _items(_dispatch(run, fact), "function_call_output")
    else:
        messages = cast(Sequence[Mapping[str, Json]], pointer(run["state"], "/messages"))
        outputs = [item for item in messages if item.get("type") == "function_call_output"]
    texts = [str(item["output"]) for item in outputs]
    if "count" in fact:
        _expect(len(texts) == fact["count"], fact, f"found {texts}")
    if "lastContains" in fact:
        wanted = cast(list[str], fact["lastContains"])
        _expect(bool(texts) and all(text in texts[-1] for text in wanted), fact, f"{texts[-1:]}")
    if "everyContains" in fact:
        text = cast(str, fact["everyContains"])
        _expect(bool(texts) and all(text in found for found in texts), fact, f"found {texts}")


def _no_output_contains(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    run = _run(transcript, fact)
    for dispatch in cast(Sequence[Mapping[str, Json]], run["dispatches"]):
        request = cast(Mapping[str, Json], dispatch["request"])
        for item in _items(request, "function_call_output"):
            _expect(cast(str, fact["text"]) not in str(item["output"]), fact, f"{item}")


def _user_messages(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    users = _items(_dispatch(_run(transcript, fact), fact), "user")
    matching = [item for item in users if cast(str, fact["containing"]) in str(item["content"])]
    _expect(len(matching) == fact["count"], fact, f"found {users}")


def _end(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    _located(_run(transcript, fact)["end"], fact)


def _session_end(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    events = cast(Sequence[Mapping[str, Json]], _run(transcript, fact)["events"])
    reasons = [
        cast(Mapping[str, Json], event["payload"])["reason"]
        for event in events
        if event["hook"] == "SessionEnd"
    ]
    _expect(reasons == fact["equals"], fact, f"found {reasons}")


def _hooks(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    events = cast(Sequence[Mapping[str, Json]], _run(transcript, fact)["events"])
    found = sum(1 for event in events if event["hook"] == fact["hook"])
    _expect(found == fact["count"], fact, f"found {found}")


def _executions(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    executions = cast(Sequence[Mapping[str, Json]], _run(transcript, fact)["executions"])
    ran = [item["arguments"] for item in executions if item["name"] == fact["tool"]]
    if "count" in fact:
        _expect(len(ran) == fact["count"], fact, f"ran {len(ran)}")
    if "arguments" in fact:
        _expect(ran == fact["arguments"], fact, f"ran {ran}")


def _state(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    _located(_run(transcript, fact)["state"], fact)


def _state_round_trip(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    blob = pointer(_run(transcript, fact)["state"], "/doomLoop")
    _expect(isinstance(blob, dict) and json.loads(json.dumps(blob)) == blob, fact, f"{blob}")


def _well_formed(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    run = _run(transcript, fact)
    if "dispatch" in fact:
        items = cast(Sequence[Mapping[str, Json]], _dispatch(run, fact)["input"])
    else:
        items = cast(Sequence[Mapping[str, Json]], pointer(run["state"], "/messages"))
    _expect(_paired(items), fact, "a function_call has no output")


def _warning(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    warnings = cast(Sequence[str], _run(transcript, fact)["warnings"])
    wanted = cast(list[str], fact["contains"])
    _expect(
        any(all(text in warning for text in wanted) for warning in warnings), fact, f"{warnings}"
    )


def _loop_keys(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    counts = cast(Mapping[str, int], _run(transcript, fact)["loopKeyInvocations"])
    found = counts.get(cast(str, fact["tool"]), 0)
    _expect(found == fact["equals"], fact, f"found {found}")


def _config(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    run = _run(transcript, fact)
    if "warningCode" in fact:
        codes = cast(Sequence[str], run["configWarnings"])
        _expect(fact["warningCode"] in codes, fact, f"found {codes}")
    if "at" in fact:
        _located(run["config"], fact)


def _order(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    """The partial order of a run's ``events`` or ``executions`` (``of``; ENG-139), read from
    the ``order`` an engine vector stores beside its transcript."""
    orders = cast(Sequence[Mapping[str, Json]], transcript.get("order", []))
    index = cast(int, fact.get("run", 0))
    _expect(index < len(orders), fact, "no order for this run")
    found = orders[index][cast(str, fact["of"])]
    _expect(found == fact["equals"], fact, f"found {found}")


def _at(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    """Any value of a run, by a JSON Pointer into it (``at``): how a vector written by
    ``conformance fuzz`` pins its first difference."""
    _located(_run(transcript, fact), fact)


CHECKS: dict[str, FactCheck] = {
    "detections": _detections_fact,
    "detectionsInclude": _detections_include,
    "detection": _detection,
    "applied": _applied,
    "dispatches": _dispatches,
    "request": _request,
    "advisor": _advisor,
    "toolOutputs": _tool_outputs,
    "noToolOutputContains": _no_output_contains,
    "userMessages": _user_messages,
    "end": _end,
    "sessionEnd": _session_end,
    "hooks": _hooks,
    "executions": _executions,
    "state": _state,
    "stateRoundTrip": _state_round_trip,
    "wellFormed": _well_formed,
    "warning": _warning,
    "loopKeyInvocations": _loop_keys,
    "config": _config,
    "order": _order,
    "at": _at,
}


def check_fact(transcript: Mapping[str, Json], fact: Mapping[str, Json]) -> None:
    """Raise :class:`FactFailure` unless the transcript shows the fact."""
    kind = cast(str, fact["kind"])
    if kind not in CHECKS:
        raise FactFailure(f"unknown fact kind {kind!r}")
    CHECKS[kind](transcript, fact)


def failed_facts(entry: Mapping[str, Json]) -> list[str]:
    """Run an entry's scenario on the reference engine; the reasons of its facts that fail."""
    from doomloop_kit.engine import run_scenario  # the engine is only needed here

    ran = run_scenario(cast(Mapping[str, Json], entry["scenario"]))
    transcript = {**ran.to_json(), "order": ran.event_order()}
    failures = []
    for fact in cast(list[Mapping[str, Json]], entry["facts"]):
        try:
            check_fact(transcript, fact)
        except FactFailure as failure:
            failures.append(str(failure))
    return failures
