"""What a replay needs from a log: model responses, their calls, and resumes.

Every reader (:mod:`.readers`) turns its format into these events; the
driver (:mod:`.driver`) never sees a format. Arguments are parsed here, once,
the way the engine parses them (spec ENG-04): text that is not JSON stays a
:class:`Malformed` raw string and becomes the key material itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from doomloop_kit.reference import UNDEFINED

from .jsonstream import loads


@dataclass(frozen=True)
class Malformed:
    """Argument text that does not parse as JSON; the raw text is the identity (ENG-04)."""

    raw: str


@dataclass(frozen=True)
class TooDeep:
    """Argument JSON nested too deeply for Python to read.

    JS would parse it, and the canonical form would then refuse it (more than
    64 levels, CAN-20), so detection is skipped for the call either way.
    """

    raw: str


Arguments = object
"""A parsed JSON value, :class:`Malformed` or :class:`TooDeep`."""


@dataclass(frozen=True)
class Call:
    """One client tool call as the model issued it."""

    name: str
    arguments: Arguments
    call_id: str | None = None


@dataclass(frozen=True)
class ServerItem:
    """A server-executed tool's output item: ``server:<type>`` and its identity (ENG-06)."""

    item_type: str
    identity: dict[str, object]


@dataclass(frozen=True)
class Response:
    """One model response: its text, its client calls, its server items."""

    line: int
    text: str = ""
    calls: tuple[Call, ...] = ()
    server: tuple[ServerItem, ...] = ()


@dataclass(frozen=True)
class Resume:
    """A new run on the same conversation (ENG-12, ENG-13).

    ``state`` is a persisted ``doomLoop`` blob to start from; absent
    (:data:`UNDEFINED`), the run restores what the previous run saved.
    """

    line: int
    state: object = field(default=UNDEFINED)


@dataclass(frozen=True)
class Notice:
    """Something odd in the log that the replay goes past (printed as a warning)."""

    line: int
    message: str


Event = Response | Resume | Notice


def parse_arguments(raw: object) -> Arguments:
    """The arguments the engine sees for a call (ENG-04).

    A string is the model's argument text: empty or blank reads as ``{}``,
    JSON is parsed, anything else is :class:`Malformed`. An absent or null
    value reads as ``{}``; any other value is already parsed.
    """
    if raw is None:
        return {}
    if not isinstance(raw, str):
        return raw
    if not raw.strip():
        return {}
    try:
        return loads(raw)
    except RecursionError:
        return TooDeep(raw)
    except ValueError:
        return Malformed(raw)


SERVER_IDENTITY_SKIPPED = frozenset(
    {"id", "type", "status", "output", "result", "results", "error"}
)
"""Members of a server item that are not part of its identity (engine brief 2.5.2)."""


def server_identity(item: dict[str, object]) -> dict[str, object]:
    """The identity of a server tool's output item: every other member (ENG-06)."""
    return {k: v for k, v in item.items() if k not in SERVER_IDENTITY_SKIPPED}
