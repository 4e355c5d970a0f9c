"""The messages of protocol v1 (spec/protocol.md), as typed definitions.

What a request and a response are, which ``id`` a request may carry, the
error codes and the handshake: the shapes both sides of the kit share. The
runner's client (:mod:`.client`) writes requests and checks responses with
them; the server core (:mod:`.server`) reads requests and writes responses.
The operations and the features are the vector files' words
(:mod:`doomloop_kit.vectorset.vocabulary`). tests/test_protocol_messages.py
checks all of it against ``spec/schema/protocol/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypedDict, final

from doomloop_kit.jsvalue.values import UNDEFINED
from doomloop_kit.vectorset.vocabulary import EXPECTED_ERRORS, FUNCTION_OPS, MONITOR_OPS

PROTOCOL_VERSION: Final = 1
"""The protocol version exchanged in ``hello`` (PROT-30)."""

PROTOCOL_REVISION: Final = "1.3"
"""The revision of that version the runner and the in-tree harnesses follow
(PROT-30: named in spec/protocol.md, never sent on the wire)."""

HELLO: Final = "hello"
CREATE: Final = "create"
CLOSE: Final = "close"
SESSION_OPS: Final = (CREATE, CLOSE)
"""The operations that open and end a session (PROT-16)."""

OPS: Final = (HELLO, *SESSION_OPS, *MONITOR_OPS, *FUNCTION_OPS)
"""Every operation of revision 1.3 (§P.6)."""

ERROR_CODES: Final = (
    *EXPECTED_ERRORS,
    "bad-request",
    "unknown-op",
    "unknown-session",
    "unsupported-protocol",
    "internal",
)
"""Every error code a harness may answer with (PROT-20); the first are expected outcomes."""

MAX_ID: Final = 2**53 - 1
"""The largest request id: ids are safe integers (PROT-24)."""

MAX_LINE_BYTES: Final = 64 * 1024 * 1024
"""The longest protocol line, its line feed aside (PROT-45; the runner's default limit on a
response line, PROT-21). Its nesting bound is :data:`~doomloop_kit.jsvalue.jsjson.MAX_DEPTH`."""


def takes_session(op: object) -> bool:
    """An operation on a monitor names its session (PROT-06, PROT-16); so does ``close``."""
    return op == CLOSE or op in MONITOR_OPS


def request_id(value: object) -> int | None:
    """The id of a request whose member ``id`` is ``value``, or None (PROT-24, PROT-09).

    An id is a safe integer: ``1.0`` is ``1`` and ``-0`` is ``0``; anything else --
    beyond +/-(2^53 - 1), fractional, not a number -- reads as no id.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None  # a fraction, NaN or an infinity
    return int(value) if abs(value) <= MAX_ID else None


# -- requests ---------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """One request before the client numbers it (PROT-06): the operation, the session
    it names (an operation on a monitor), and its inputs, tagged JSON named as in §P.6."""

    op: str
    inputs: Mapping[str, Any] = field(default_factory=dict)
    session: str | None = None

    @classmethod
    def hello(cls) -> Request:
        """The handshake (PROT-11)."""
        return cls(HELLO, {"protocol": PROTOCOL_VERSION})

    @classmethod
    def create(cls, option: object, state: object = UNDEFINED) -> Request:
        """A new session for ``option``, restored from ``state`` unless it is left out
        (PROT-17: a ``null`` state is a state)."""
        inputs = {"option": option} if state is UNDEFINED else {"option": option, "state": state}
        return cls(CREATE, inputs)

    @classmethod
    def close(cls, session: str) -> Request:
        return cls(CLOSE, session=session)

    def message(self, ident: int) -> dict[str, Any]:
        """The JSON object of the request line: ``id``, ``op``, ``session``, the inputs."""
        message: dict[str, Any] = {"id": ident, "op": self.op}
        if self.session is not None:
            message["session"] = self.session
        message.update(self.inputs)
        return message


# -- responses --------------------------------------------------------------------


class ErrorBody(TypedDict):
    """The ``error`` member of a response (PROT-07, PROT-20)."""

    code: str
    message: str


@final  # final: ``"error" in response`` tells the two kinds apart (for mypy too)
class ResultResponse(TypedDict):
    id: int | None
    result: object


@final
class ErrorResponse(TypedDict):
    id: int | None
    error: ErrorBody


Response = ResultResponse | ErrorResponse
"""A response line (PROT-07): the request's ``id`` (null when it had none, PROT-09)
and exactly one of ``result`` and ``error``."""


def result_response(ident: int | None, result: object) -> ResultResponse:
    return {"id": ident, "result": result}


def error_response(ident: int | None, code: str, message: str) -> ErrorResponse:
    return {"id": ident, "error": {"code": code, "message": message}}


def response_problem(response: object) -> str:
    """Why a decoded line is not a well-formed response ('' when it is, PROT-07)."""
    if not isinstance(response, dict):
        return "a response is a JSON object"
    if "id" not in response:
        return "a response without an id"
    has_result, has_error = "result" in response, "error" in response
    if has_result == has_error:
        return "a response has exactly one of result and error"
    if has_error:
        error = response["error"]
        if not isinstance(error, dict) or not isinstance(error.get("code"), str):
            return "error must be an object with a string code"
        if not isinstance(error.get("message"), str):
            return "error must carry a string message"
    return ""


# -- the handshake ------------------------------------------------------------------


class Implementation(TypedDict):
    name: str
    language: str
    version: str


class HelloResult(TypedDict):
    """The result of ``hello`` (PROT-11, PROT-12)."""

    protocol: int
    implementation: Implementation
    features: list[str]


def hello_result(name: str, language: str, version: str, features: Sequence[str]) -> HelloResult:
    return {
        "protocol": PROTOCOL_VERSION,
        "implementation": {"name": name, "language": language, "version": version},
        "features": list(features),
    }


def hello_problem(result: object) -> str:
    """Why a ``hello`` result of this protocol version is malformed ('' when it is not,
    PROT-13); its ``protocol`` number is checked apart (another version is no fault)."""
    if not isinstance(result, dict):
        return "hello result is not an object"
    implementation = result.get("implementation")
    if not isinstance(implementation, dict) or not all(
        isinstance(implementation.get(k), str) for k in ("name", "language", "version")
    ):
        return "hello result lacks implementation name/language/version"
    features = result.get("features")
    if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
        return "hello result lacks a features list"
    return ""
