"""What a replay needs from a log: model responses, their calls, tool results, run boundaries.

Every reader (:mod:`.readers` and the agent formats) turns its format into
these events; the driver (:mod:`.driver`) never sees a format. Arguments are
kept as the model emitted them -- the text of a function call, or the value
of a format that stores them parsed -- and only the engine parses them
(:mod:`.session`, ENG-37/ENG-38), so the replay has no parser of its own.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Final

from doomloop_kit.reference import UNDEFINED


@dataclass(frozen=True)
class Call:
    """One client tool call as the model issued it.

    ``arguments`` is the argument *text* when the format records text (it is
    parsed by the engine: ENG-37, ENG-38), or the already parsed JSON value
    when the format stores a value (Anthropic ``input``, the doomloop form's
    non-string ``arguments``): then ``parsed`` is True.
    """

    name: str
    arguments: object
    call_id: str | None = None
    parsed: bool = False


@dataclass(frozen=True)
class Response:
    """One model response: its text, its client calls, its other output items.

    ``server`` holds output items the engine's response checkpoint records as
    server tools (ENG-56..ENG-58): the raw items, whose identity the engine
    computes.
    """

    line: int
    text: str = ""
    calls: tuple[Call, ...] = ()
    server: tuple[dict[str, object], ...] = ()


@dataclass(frozen=True)
class Result:
    """A tool result: the call it answers and a digest of its content (result awareness)."""

    line: int
    call_id: str
    digest: str


@dataclass(frozen=True)
class Resume:
    """A new run on the same conversation (ENG-12, ENG-13).

    ``state`` is a persisted ``doomLoop`` blob to start from; absent
    (:data:`UNDEFINED`), the run restores what the previous run saved.
    """

    line: int
    state: object = field(default=UNDEFINED)


@dataclass(frozen=True)
class Conversation:
    """A new, independent conversation in the same file (a fresh monitor).

    Files that hold many runs (tau-bench results) start each with one;
    ``outcome`` is the label the file itself gives the run (a reward), or None.
    """

    line: int
    run_id: str
    outcome: object = None


@dataclass(frozen=True)
class Thread:
    """The events that follow belong to another conversation of the same log, replayed
    with a monitor of its own: a sub-agent's (``name``), or the log's own again (None).

    A sub-agent runs its own loop beside its parent's (an SDK sub-agent has its own
    engine and monitor), and the log may interleave the two: switching back keeps each
    conversation's state. ``session`` is the id of the session the lines belong to,
    which links a sub-agent's run to its parent's; ``mirror`` marks a sub-agent read
    from the progress lines its session mirrors it in (its calls, not its text).
    """

    line: int
    name: str | None
    session: str | None = None
    mirror: bool = False


@dataclass(frozen=True)
class Notice:
    """Something odd in the log that the replay goes past (printed as a warning)."""

    line: int
    message: str


@dataclass(frozen=True)
class Skipped:
    """A record the reader does not know (an unknown type or role): it is left out, never
    read as a call, and reported as a problem naming its line; the replay goes on."""

    line: int
    message: str


Event = Response | Result | Resume | Conversation | Thread | Notice | Skipped

DIGEST_BYTES: Final = 8


def digest(content: object) -> str:
    """A short digest of a tool result's content, equal exactly when the content is.

    Text is hashed as it is; any other value through its JSON text with
    sorted member names. Only equality matters (identical vs changed results).
    """
    text = (
        content
        if isinstance(content, str)
        else json.dumps(content, sort_keys=True, ensure_ascii=False, default=str)
    )
    data = text.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=DIGEST_BYTES).hexdigest()
