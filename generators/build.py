"""Turn a transcript into a vector by running it through the reference.

A *transcript* is a plain dict (tagged JSON throughout)::

    {"option": <option>,            # present iff a step needs a monitor
     "initialState": <blob>,        # optional: construct-then-restore
     "steps": [{"op": "recordToolCall", "toolName": ..., ...}, ...]}

Its steps carry inputs but no expectations. :func:`expectations` runs them
through :mod:`~doomloop_kit.vectorset.oracle` and returns, per step,
``{"result": result}`` (every part of a result is normative, PROT-22) or
``{"error": code}``;
:func:`build_vector` wraps that into a :class:`~.format.Vector` with its
features computed by ``vocabulary.features_of`` over every input. Expected results
are never typed by hand: this module is the only place they come from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from doomloop_kit.vectorset import oracle
from doomloop_kit.vectorset.expectations import error_expectation
from doomloop_kit.vectorset.files import ABSENT, Step, Vector
from doomloop_kit.vectorset.vocabulary import (
    ENGINE_FEATURE,
    ENGINE_OP,
    EXPECTED_ERRORS,
    FUNCTION_OPS,
    MEMBER_RULES,
    MONITOR_OPS,
    OP_FEATURES,
    RESUME_OP,
    OpError,
    UndecodableInput,
    features_of,
    uses_js_coercion,
)

Transcript = Mapping[str, Any]
"""``{"option"?, "initialState"?, "steps": [...]}`` -- see the module docstring."""


DECLARED_ONLY_FEATURES = MEMBER_RULES
"""Features that mark an expectation rather than an input encoding (spec CONF-11)."""


PLAIN_JSON_FEATURES = frozenset({"large-integers", "lone-surrogates"})
"""Features of plain JSON, the only ones an engine scenario can need besides ``engine``."""


class BuildError(ValueError):
    """A transcript the reference cannot run (a generator or curation bug)."""


def needs_monitor(steps: Iterable[Mapping[str, Any]]) -> bool:
    return any(step["op"] in MONITOR_OPS or step["op"] == RESUME_OP for step in steps)


def _inputs(step: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in step.items() if k not in ("op", "expect")}


def expected_error(error: OpError) -> dict[str, Any]:
    """The expectation of a step that fails with an expected outcome (spec/vectors.md#expect)."""
    return error_expectation(error.code, str(error))


def expectations(transcript: Transcript, features: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The expectation of every step, computed by the reference (spec/vectors.md#expect).

    ``features`` are the vector's declared features: ``js-inherited-members``
    resolves field lists with JS ``in`` (KEY-23).
    """
    function_ops = oracle.function_ops(features)
    steps = transcript["steps"]
    option = transcript.get("option", ABSENT)
    monitor = None
    if needs_monitor(steps):
        if option is ABSENT:
            raise BuildError("a transcript with monitor steps needs an option")
        request: dict[str, Any] = {"option": option}
        if "initialState" in transcript:
            request["state"] = transcript["initialState"]
        try:
            monitor = oracle.create_monitor(request)
        except OpError as error:
            raise BuildError(f"cannot create the monitor: {error}") from error
    result_list: list[dict[str, Any]] = []
    for index, step in enumerate(steps):
        op = step["op"]
        try:
            if op == RESUME_OP:
                monitor, result = oracle.resume(monitor, option)  # type: ignore[arg-type]
            elif op in MONITOR_OPS:
                result = oracle.MONITOR_OPS[op](monitor, step)  # type: ignore[arg-type]
            elif op == ENGINE_OP:  # the transcript and its partial order (ENG-139)
                result_list.append(oracle.engine_expectation(step))
                continue
            elif op in FUNCTION_OPS:
                result = function_ops[op](step)
            else:
                raise BuildError(f"step {index}: unknown op {op!r}")
        except OpError as error:
            if error.code not in EXPECTED_ERRORS and not isinstance(error, UndecodableInput):
                raise BuildError(f"step {index} ({op}): {error.code}: {error}") from error
            result_list.append(expected_error(error))
            continue
        result_list.append({"result": result})
    return result_list


def features_of_transcript(transcript: Transcript) -> list[str]:
    """Sorted features needed by every input of the transcript (spec/features.md)."""
    found: set[str] = set()
    for name in ("option", "initialState"):
        if name in transcript:
            found |= features_of(transcript[name])
    if "option" in transcript and uses_js_coercion(
        {"op": "create", "option": transcript["option"]}
    ):
        found.add("js-coercion")
    for step in transcript["steps"]:
        if step["op"] == ENGINE_OP:  # a plain-JSON scenario: no tagged value in it
            found |= {ENGINE_FEATURE} | (features_of(step["scenario"]) & PLAIN_JSON_FEATURES)
            continue
        for value in _inputs(step).values():
            found |= features_of(value)
        if uses_js_coercion(step):
            found.add("js-coercion")
        if step["op"] in OP_FEATURES:
            found.add(OP_FEATURES[step["op"]])
    return sorted(found)


def features_of_vector(vector: Vector) -> list[str]:
    """The features field a vector must carry: :func:`features_of` over its inputs."""
    return features_of_transcript(vector.transcript())


def content_hash(transcript: Transcript) -> str:
    """First 10 hex of SHA-256 over the canonical JSON of the transcript's inputs.

    The canonical JSON is ``{"option"?, "initialState"?, "steps"}`` (steps as
    ``{"op", ...inputs}``, tagged inputs as plain data) written with sorted
    member names, no whitespace and ASCII escapes (Python
    ``json.dumps(..., sort_keys=True, separators=(",", ":"))``), so the id of a
    generated vector names its content. It is not the spec's canonical form
    on purpose: inputs may be nested deeper than that form allows.
    """
    data: dict[str, Any] = {}
    for name in ("option", "initialState"):
        if name in transcript:
            data[name] = transcript[name]
    data["steps"] = [{"op": step["op"], **_inputs(step)} for step in transcript["steps"]]
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:10]


def build_vector(
    id: str,
    description: str,
    spec: Sequence[str],
    tags: Sequence[str],
    transcript: Transcript,
    extra_features: Sequence[str] = (),
) -> Vector:
    """Run ``transcript`` through the reference and return the finished vector.

    ``extra_features`` names features that no input encoding reveals:
    ``json-own-members`` and ``js-inherited-members`` (spec/features.md).
    """
    if set(extra_features) - DECLARED_ONLY_FEATURES:
        raise BuildError(f"{id}: only {sorted(DECLARED_ONLY_FEATURES)} may be declared by hand")
    steps = list(transcript["steps"])
    if not steps:
        raise BuildError(f"{id}: a vector needs at least one step")
    if not oracle.declares_member_rule_rightly(extra_features, steps):
        raise BuildError(
            f"{id}: declare one of {sorted(DECLARED_ONLY_FEATURES)} exactly when a"
            " resolveLoopKey step names an inherited member its args lacks (CONF-13)"
        )
    expects = expectations(transcript, extra_features)
    built = [
        Step(step["op"], _inputs(step), expect) for step, expect in zip(steps, expects, strict=True)
    ]
    vector = Vector(
        id=id,
        description=description,
        spec=list(dict.fromkeys(spec)),
        tags=list(dict.fromkeys(tags)),
        features=sorted(set(features_of_transcript(transcript)) | set(extra_features)),
        steps=built,
        option=transcript["option"] if needs_monitor(steps) else ABSENT,
        initial_state=transcript.get("initialState", ABSENT),
    )
    return vector


def engine_transcript(scenario: Any) -> Transcript:
    """The one-step transcript of an engine vector (spec/vectors.md#engine-vectors)."""
    return {"steps": [{"op": ENGINE_OP, "scenario": scenario}]}


def build_engine_vector(
    id: str,
    description: str,
    spec: Sequence[str],
    tags: Sequence[str],
    scenario: Any,
    facts: Sequence[Any] = (),
) -> Vector:
    """Run ``scenario`` through the reference engine and return the engine vector: its
    expectation is the transcript, or ``{"error": "bad-scenario"}`` (ENG-23)."""
    transcript = engine_transcript(scenario)
    (expect,) = expectations(transcript)
    return Vector.engine(
        id,
        description,
        list(dict.fromkeys(spec)),
        list(dict.fromkeys(tags)),
        features_of_transcript(transcript),
        scenario,
        expect,
        facts,
    )
