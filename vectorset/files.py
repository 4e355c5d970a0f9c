"""The vector file format (format version 1) in code: spec/vectors.md.

Public API (stable; the runner and the tests import it):

* :class:`VectorFile`, :class:`Vector`, :class:`Step` -- a parsed file.
* :func:`load_vector_file` -- read, schema-check and parse one file; a
  malformed file raises :class:`VectorFormatError` naming the file and the
  JSON path of the first problem.
* :func:`load_manifest` / :func:`iter_vector_files` -- the manifest and the
  files it lists, in manifest order.
* :func:`dumps` / :func:`write_json_atomic` -- the one byte form every vector
  file and the manifest are written in.
* :func:`compare` -- the comparison rule (numbers as doubles, objects
  order-insensitive, arrays ordered, strings exactly, by UTF-16 code units),
  returning a list of :class:`Difference` with JSON paths such as
  ``$.verdict.message``. An empty list means "equal".
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from doomloop_kit.jsvalue import jsjson, utf16
from doomloop_kit.jsvalue.values import UNDEFINED, is_number, to_double

from . import reading, resources, writing
from .vocabulary import ENGINE_OP, FEATURES, MONITOR_OPS, RESUME_OP

FORMAT_VERSION: Final = 1
"""The format version this module reads and writes (spec/vectors.md#versioning)."""

SCHEMA_NAME: Final = "vectors.schema.json"
MANIFEST_NAME: Final = "manifest.json"


class VectorFormatError(ValueError):
    """A vector file or manifest that does not follow the format.

    ``path`` is the file, ``json_path`` the place inside it (``$`` for the
    whole document); ``str(error)`` names both.
    """

    def __init__(self, path: Path | str, json_path: str, message: str) -> None:
        super().__init__(f"{path}: {json_path}: {message}")
        self.path = Path(path)
        self.json_path = json_path
        self.detail = message


ABSENT: Final = UNDEFINED
"""An optional vector member that is not there: JS ``undefined``."""
"""The value of :attr:`Vector.option` / :attr:`Vector.initial_state` when absent."""


@dataclass(frozen=True)
class Step:
    """One operation: ``op``, its ``inputs`` (tagged JSON) and its expectation.

    ``expect`` is ``{"result": <normative result>}`` or ``{"error": code}``.
    """

    op: str
    inputs: dict[str, Any]
    expect: dict[str, Any]

    @property
    def expects_error(self) -> str | None:
        """The expected error code, or None when a result is expected."""
        error = self.expect.get("error")
        return error if isinstance(error, str) else None

    @property
    def expected_result(self) -> Any:
        """The expected normative result (KeyError when an error is expected)."""
        return self.expect["result"]

    @property
    def needs_monitor(self) -> bool:
        return self.op in MONITOR_OPS or self.op == RESUME_OP

    def request(self) -> dict[str, Any]:
        """The step as an oracle/protocol request: ``{"op": ..., **inputs}``."""
        return {"op": self.op, **self.inputs}

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, **self.inputs, "expect": self.expect}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Step:
        inputs = {k: v for k, v in data.items() if k not in ("op", "expect")}
        return cls(str(data["op"]), inputs, dict(data["expect"]))


@dataclass(frozen=True)
class Vector:
    """One scenario: steps run in order against one monitor (if any)."""

    id: str
    description: str
    spec: list[str]
    tags: list[str]
    features: list[str]
    steps: list[Step]
    option: Any = ABSENT
    initial_state: Any = ABSENT
    facts: tuple[Any, ...] = ()
    """An engine vector's facts (informative): why its expectation can be trusted."""

    @property
    def family(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def is_engine(self) -> bool:
        """An engine vector: one ``runScenario`` step, stored as ``scenario`` + ``expect``."""
        return len(self.steps) == 1 and self.steps[0].op == ENGINE_OP

    @classmethod
    def engine(
        cls,
        id: str,
        description: str,
        spec: list[str],
        tags: list[str],
        features: list[str],
        scenario: Any,
        expect: dict[str, Any],
        facts: Sequence[Any] = (),
    ) -> Vector:
        """An engine vector: ``scenario`` run by ``runScenario``, ``expect`` its transcript."""
        step = Step(ENGINE_OP, {"scenario": scenario}, expect)
        return cls(id, description, spec, tags, features, [step], facts=tuple(facts))

    @property
    def needs_monitor(self) -> bool:
        return any(step.needs_monitor for step in self.steps)

    def transcript(self, *, with_expectations: bool = False) -> dict[str, Any]:
        """The vector's inputs (``option``, ``initialState``, ``steps``), as in the file."""
        data: dict[str, Any] = {}
        if self.option is not ABSENT:
            data["option"] = self.option
        if self.initial_state is not ABSENT:
            data["initialState"] = self.initial_state
        data["steps"] = [
            step.to_json() if with_expectations else step.request() for step in self.steps
        ]
        return data

    def to_json(self) -> dict[str, Any]:
        head = {
            "id": self.id,
            "description": self.description,
            "spec": list(self.spec),
            "tags": list(self.tags),
            "features": list(self.features),
        }
        if self.is_engine:
            step = self.steps[0]
            facts = {"facts": list(self.facts)} if self.facts else {}
            return {**head, "scenario": step.inputs["scenario"], **facts, "expect": step.expect}
        return {**head, **self.transcript(with_expectations=True)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Vector:
        if "scenario" in data:
            return cls.engine(
                str(data["id"]),
                str(data["description"]),
                list(data["spec"]),
                list(data["tags"]),
                list(data["features"]),
                data["scenario"],
                dict(data["expect"]),
                data.get("facts", ()),
            )
        return cls(
            id=str(data["id"]),
            description=str(data["description"]),
            spec=list(data["spec"]),
            tags=list(data["tags"]),
            features=list(data["features"]),
            steps=[Step.from_json(step) for step in data["steps"]],
            option=data.get("option", ABSENT),
            initial_state=data.get("initialState", ABSENT),
        )


@dataclass(frozen=True)
class VectorFile:
    """One vector file. ``path`` is where it was read from (None if built in memory)."""

    kind: str
    family: str
    description: str
    vectors: list[Vector]
    generator: dict[str, Any] | None = None
    format: int = FORMAT_VERSION
    path: Path | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": self.format,
            "kind": self.kind,
            "family": self.family,
            "description": self.description,
        }
        if self.generator is not None:
            data["generator"] = dict(self.generator)
        data["vectors"] = [vector.to_json() for vector in self.vectors]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], path: Path | None = None) -> VectorFile:
        return cls(
            kind=str(data["kind"]),
            family=str(data["family"]),
            description=str(data["description"]),
            vectors=[Vector.from_json(vector) for vector in data["vectors"]],
            generator=dict(data["generator"]) if "generator" in data else None,
            format=int(data["format"]),
            path=path,
        )


# -- reading ------------------------------------------------------------------


@functools.cache
def _schema_bytes() -> bytes:
    return (resources.schema_dir() / SCHEMA_NAME).read_bytes()


@functools.cache
def load_schema() -> dict[str, Any]:
    """spec/schema/vectors.schema.json, parsed."""
    schema: dict[str, Any] = json.loads(_schema_bytes())
    return schema


def feature_vocabulary() -> frozenset[str]:
    """The feature names a vector may need (spec/features.md): those the vector schema
    lists and those the reference implements."""
    features = load_schema()["$defs"]["feature"]["enum"]
    return frozenset(features) | frozenset(FEATURES)


RULES_REVISION: Final = b"rules 3: engine order; JSON as JS reads it, bounded (PROT-45)"
"""Changes when :func:`validate_vector_file_data` checks more than the schema says, so
that a file a cache remembers as valid under the old rules is checked again."""


def schema_sha256() -> str:
    """The sha256 of the schema text and of :data:`RULES_REVISION`: a file valid once stays
    valid for the same schema and rules."""
    return hashlib.sha256(_schema_bytes() + RULES_REVISION).hexdigest()


@functools.cache
def _validator(definition: str | None) -> Any:
    import jsonschema  # imported on first use: a run that validates nothing skips its cost

    schema = load_schema()
    if definition is not None:
        schema = {
            "$schema": schema["$schema"],
            "$defs": schema["$defs"],
            "$ref": f"#/$defs/{definition}",
        }
    return jsonschema.Draft202012Validator(schema)


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateMember(key)
        result[key] = value
    return result


class _DuplicateMember(ValueError):
    pass


def _read_json(path: Path) -> Any:
    try:
        raw = reading.read_bytes(path, regular=True)
    except reading.InputError as error:
        raise VectorFormatError(path, "$", error.problem) from error
    return parse_json_bytes(path, raw)


def _integer(text: str) -> int:
    """An integer literal of a vector file, exact (the runner sends it as written). One
    longer than Python's integer text allows (4,300 digits unless configured) is
    refused by name: JS reads it as Infinity, which a file writes ``1e400`` or tagged."""
    digits = len(text.lstrip("-"))
    allowed = sys.get_int_max_str_digits()
    if allowed and digits > allowed:
        raise _TooLong(
            f"an integer of {digits:,} digits, more than a vector file holds ({allowed:,}): "
            "JS reads it as Infinity; write 1e400 or a tagged number"
        )
    return int(text)


class _TooLong(ValueError):
    pass


def parse_json_bytes(path: Path, raw: bytes) -> Any:
    """Decode a vector file's or manifest's bytes: UTF-8 JSON as JS reads it (no
    ``NaN``, at most :data:`~doomloop_kit.jsvalue.jsjson.MAX_DEPTH` levels deep,
    PROT-45), no duplicate member names, integers exact (:func:`_integer`)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise VectorFormatError(path, "$", f"not UTF-8 (byte {error.start})") from error
    try:
        return jsjson.loads(text, object_pairs_hook=_reject_duplicates, parse_int=_integer)
    except _DuplicateMember as error:
        raise VectorFormatError(path, "$", f"duplicate member name {error.args[0]!r}") from error
    except json.JSONDecodeError as error:
        where = f"line {error.lineno} column {error.colno}"
        raise VectorFormatError(path, "$", f"{jsjson.problem(error)} at {where}") from error
    except jsjson.NestingError as error:
        raise VectorFormatError(path, "$", str(error)) from error
    except ValueError as error:  # NaN, Infinity, an integer too long to keep exact
        raise VectorFormatError(path, "$", f"not JSON as JS reads it: {error}") from error


def _schema_check(path: Path, data: Any, definition: str | None) -> None:
    errors = sorted(
        _validator(definition).iter_errors(data),
        key=lambda e: (list(map(str, e.absolute_path)), e.message),
    )
    if errors:
        # the deepest error is the most specific one
        error = max(errors, key=lambda e: len(e.absolute_path))
        raise VectorFormatError(path, error.json_path, error.message)


def validate_vector_file_data(data: Any, path: Path | str = "<memory>") -> None:
    """Check an in-memory file document: schema, then the rules a schema cannot say."""
    path = Path(path)
    _schema_check(path, data, None)
    family = data["family"]
    seen: set[str] = set()
    for index, vector in enumerate(data["vectors"]):
        where = f"$.vectors[{index}].id"
        if not vector["id"].startswith(family + "/"):
            raise VectorFormatError(path, where, f"id {vector['id']!r} is not in family {family!r}")
        if vector["id"] in seen:
            raise VectorFormatError(path, where, f"duplicate vector id {vector['id']!r}")
        seen.add(vector["id"])
        if list(vector["features"]) != sorted(vector["features"]):
            raise VectorFormatError(path, f"$.vectors[{index}].features", "features not sorted")
        if "scenario" in vector and data["kind"] == "curated" and not vector.get("facts"):
            raise VectorFormatError(
                path, f"$.vectors[{index}]", "a curated engine vector cites the facts it pins"
            )
        if "order" in vector.get("expect", {}):
            _check_engine_order(path, index, vector)


def _check_engine_order(path: Path, index: int, vector: Mapping[str, Any]) -> None:
    """An engine vector's ``expect.order`` fits its runs (ENG-139): checked here, so that a
    malformed order is a malformed file, never a failure in the middle of a run."""
    from .event_order import order_problem  # event_order compares with this module's rule

    expect = vector["expect"]
    problem = order_problem(expect["order"], expect["result"]["runs"])
    if problem is not None:
        raise VectorFormatError(
            path, f"$.vectors[{index}].expect.order", f"vector {vector['id']!r}: {problem}"
        )


def load_vector_file(path: Path | str) -> VectorFile:
    """Read one vector file; raise :class:`VectorFormatError` if it is malformed."""
    path = Path(path)
    data = _read_json(path)
    validate_vector_file_data(data, path)
    return VectorFile.from_json(data, path)


def load_manifest(root: Path | str = "vectors") -> dict[str, Any]:
    """``<root>/manifest.json``, schema-checked."""
    path = Path(root) / MANIFEST_NAME
    return load_manifest_data(path, None)


def load_manifest_data(path: Path, raw: bytes | None) -> dict[str, Any]:
    """A manifest's bytes (read from ``path`` when None), parsed and schema-checked."""
    data = _read_json(path) if raw is None else parse_json_bytes(path, raw)
    _schema_check(path, data, "manifest")
    manifest: dict[str, Any] = data
    return manifest


def iter_vector_files(root: Path | str = "vectors") -> list[Path]:
    """The vector files the manifest of ``root`` lists, in manifest order."""
    root = Path(root)
    return [root / entry["path"] for entry in load_manifest(root)["files"]]


# -- writing ------------------------------------------------------------------


def dumps(obj: Any) -> bytes:
    """The byte form of every vector file and the manifest.

    ``json.dumps(obj, ensure_ascii=False, indent=1)`` plus a final newline,
    encoded as UTF-8, except that a lone surrogate (which UTF-8 cannot hold)
    is written as a lowercase ``\\udxxx`` escape. NaN/Infinity are refused
    (they travel as tagged values).
    """
    text = json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=False, allow_nan=False)
    return (utf16.escape_lone_surrogates(text) + "\n").encode("utf-8")


def write_json_atomic(path: Path | str, obj: Any) -> None:
    """Write ``obj`` (see :func:`dumps`) to ``path``, replaced atomically once whole
    (:func:`~.writing.write_file`)."""
    writing.write_file(path, dumps(obj))


# -- comparison -----------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    """One place where an actual value differs from the expected one.

    ``path`` is a JSON path from ``$`` (``$.verdict.message``,
    ``$.tools["x y"].streak``, ``$.warnings[1]``); ``expected`` / ``actual``
    are the values found there (:data:`ABSENT` for a missing member);
    ``reason`` is a short human explanation.
    """

    path: str
    expected: Any
    actual: Any
    reason: str

    def __str__(self) -> str:
        shown = f"expected {_show(self.expected)}, got {_show(self.actual)}"
        return f"{self.path}: {self.reason} ({shown})"


def _show(value: Any) -> str:
    if value is ABSENT:
        return "nothing"
    try:
        text = json.dumps(value, ensure_ascii=True, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


_IDENTIFIER: Final = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def member_path(base: str, key: str) -> str:
    """``base.key`` for identifier-like keys, else ``base["key"]``."""
    if _IDENTIFIER.match(key):
        return f"{base}.{key}"
    return f"{base}[{json.dumps(key, ensure_ascii=True)}]"


def json_kind(value: Any) -> str:
    """The JSON type a value is read as: ``null``, ``boolean``, ``number``, ``string``,
    ``array`` or ``object`` (else its Python type's name)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Sequence):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def pointer_path(base: str, key: str) -> str:
    """``base/key`` as a JSON Pointer (RFC 6901: ``~`` and ``/`` escaped)."""
    return f"{base}/{key.replace('~', '~0').replace('/', '~1')}"


def compare(
    expected: Any, actual: Any, path: str = "$", *, pointer: bool = False
) -> list[Difference]:
    """Compare two JSON values by the vector comparison rule (spec/vectors.md#comparison).

    * numbers compare as IEEE-754 doubles (``3 == 3.0``; an integer beyond
      2^53 is first rounded to its double); booleans are not numbers;
    * strings compare exactly, as UTF-16 code-unit sequences;
    * arrays compare element by element, in order, and by length;
    * objects compare by member set, order ignored.

    Returns every difference found (empty list = equal), each with a JSON
    path rooted at ``path`` (a JSON Pointer such as ``/end/reason`` when
    ``pointer``). Both arguments are plain decoded JSON (tagged values are
    compared as the ordinary objects they are).
    """
    if _same_text(expected, actual):
        return []
    differences: list[Difference] = []
    _compare(expected, actual, path, differences, pointer)
    return differences


def _same_text(expected: Any, actual: Any) -> bool:
    """A shortcut for the common case, equal values: two values with the same JSON text
    (members sorted) are equal by the rule. Python's ``==`` decides first, at C speed;
    the texts then tell ``true`` from ``1`` and ``1`` from ``1.0`` (which the rule
    compares in :func:`_compare`)."""
    try:
        if expected != actual:
            return False
        return json.dumps(expected, sort_keys=True) == json.dumps(actual, sort_keys=True)
    except (TypeError, ValueError, RecursionError):  # mixed keys, huge or deep: the long way
        return False


def _member(path: str, key: str, pointer: bool) -> str:
    return pointer_path(path, key) if pointer else member_path(path, key)


def _element(path: str, index: int, pointer: bool) -> str:
    return f"{path}/{index}" if pointer else f"{path}[{index}]"


def _compare(expected: Any, actual: Any, path: str, out: list[Difference], pointer: bool) -> None:
    kind, actual_kind = json_kind(expected), json_kind(actual)
    if kind != actual_kind:
        out.append(Difference(path, expected, actual, f"expected a {kind}, got a {actual_kind}"))
        return
    if kind == "number":
        a, b = to_double(expected), to_double(actual)
        if not (a == b or (math.isnan(a) and math.isnan(b))):
            out.append(Difference(path, expected, actual, "different number"))
    elif kind == "string":
        if utf16.normalize(expected) != utf16.normalize(actual):  # code units
            out.append(Difference(path, expected, actual, "different string"))
    elif kind == "array":
        if len(expected) != len(actual):
            out.append(
                Difference(
                    path,
                    expected,
                    actual,
                    f"array of {len(actual)} elements, expected {len(expected)}",
                )
            )
        for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
            _compare(e, a, _element(path, index, pointer), out, pointer)
    elif kind == "object":
        actual_keys = {utf16.sort_key(str(k)): k for k in actual}
        expected_keys = {utf16.sort_key(str(k)): k for k in expected}
        for units, key in expected_keys.items():
            where = _member(path, str(key), pointer)
            if units not in actual_keys:
                out.append(Difference(where, expected[key], ABSENT, "missing member"))
            else:
                _compare(expected[key], actual[actual_keys[units]], where, out, pointer)
        for units, key in actual_keys.items():
            if units not in expected_keys:
                where = _member(path, str(key), pointer)
                out.append(Difference(where, ABSENT, actual[key], "unexpected member"))
    elif kind in ("null", "boolean"):
        if expected is not actual and expected != actual:
            out.append(Difference(path, expected, actual, "different value"))
    elif expected != actual:
        out.append(Difference(path, expected, actual, "different value"))
