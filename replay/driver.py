"""The replay: a log's responses fed to the monitor the way the SDK engine feeds it.

For each model response, in order (engine brief 4.1, 2.5, 2.1): the text
check (``recordAssistantText``), then the server-tool items (recorded with
``allowBlock: false``, never declared, ENG-06), then -- when the response has
client calls -- a new round: ``declareRound`` with every declared call
(ENG-01), then one checkpoint per call in emission order. A checkpoint
resolves the call's identity (ENG-03; malformed arguments are their own key
material, ENG-04; exempt calls are skipped, ENG-05), records it, falls back
to the full arguments when the key cannot be fingerprinted, and reuses the
round's earlier decision for an in-round duplicate (ENG-02). A ``resume``
record starts a new run from the saved state (ENG-12, ENG-13); so does a
response that follows a response without client calls, since such a
response ends the engine's run (the next belongs to the next ``callModel``,
on persisted state).

Every call is treated as a configured, executable client tool with no hooks;
the log is fed as recorded, so what follows a block or a stop is what the
monitor would have said had the run gone on the same way (``halted``).
:func:`replay` yields one entry per round, text check, server check, resume
and notice; it keeps nothing from earlier responses but the monitor.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from doomloop_kit.reference import UNDEFINED, CanonicalizationError, DetectorKind, Verdict
from doomloop_kit.reference.ladder import ACTION_STRENGTH
from doomloop_kit.reference.text import normalize_text

from .events import Event, Notice, Response, Resume, ServerItem
from .options import Identity, ReplayOptions, identify
from .session import RecordingSession, Session

PROCEED = "proceed"
BLOCKING = frozenset({"block", "stop"})
"""Applied actions under which a client call is not executed (engine brief 3.4, 3.5.2)."""


@dataclass(frozen=True)
class CallResult:
    """One checkpoint: the call, its streak and the action the engine applies."""

    tool: str
    identity: str
    """``arguments``, ``loop key``, ``fallback``, ``malformed``, ``exempt`` or ``skipped``."""
    action: str
    """A rung, ``proceed``, or ``exempt``/``skipped`` when nothing was recorded."""
    fingerprint: str | None = None
    streak: float | None = None
    duplicate: bool = False
    verdict: Verdict | None = None
    call_id: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def blocked(self) -> bool:
        return self.action in BLOCKING


@dataclass(frozen=True)
class RoundResult:
    """One round: a response's client calls (``number`` counts rounds across runs)."""

    number: int
    run: int
    run_round: int
    line: int
    calls: tuple[CallResult, ...]
    halted: bool = False
    """True when a stop had already been armed in this run (the engine would have halted)."""

    @property
    def action(self) -> str | None:
        return strongest(call.action for call in self.calls)

    @property
    def verdict(self) -> Verdict | None:
        verdicts = [c.verdict for c in self.calls if c.verdict is not None]
        return max(verdicts, key=lambda v: ACTION_STRENGTH[v.action], default=None)


@dataclass(frozen=True)
class TextResult:
    """One text check of a response with non-blank text (MON-41)."""

    line: int
    after_round: int
    streak: float
    verdict: Verdict | None
    halted: bool = False
    in_round: bool = False
    """True when the response also makes calls (its round is ``after_round + 1``)."""

    @property
    def action(self) -> str | None:
        return None if self.verdict is None else self.verdict.action


@dataclass(frozen=True)
class ServerResult:
    """The server-tool records of one response (ENG-06)."""

    line: int
    after_round: int
    calls: tuple[CallResult, ...]
    halted: bool = False

    @property
    def action(self) -> str | None:
        return strongest(call.action for call in self.calls)


@dataclass(frozen=True)
class ResumeResult:
    """A new run: from the previous run's saved state, or from a state given in the log."""

    line: int
    run: int
    given_state: bool = False
    implicit: bool = False
    """True for a new turn the log does not mark (after a response without calls)."""


Entry = RoundResult | TextResult | ServerResult | ResumeResult | Notice


def strongest(actions: Iterable[str]) -> str | None:
    rungs = [a for a in actions if a in ACTION_STRENGTH]
    return max(rungs, key=ACTION_STRENGTH.__getitem__, default=None)


@dataclass
class _Run:
    number: int = 1
    round: int = 0
    stopped: bool = False
    ended: bool = False
    """The run's last response made no client call: the engine's loop has exited."""
    decisions: dict[str, str] = field(default_factory=dict)


class Replay:
    """Feeds events to a session; one instance per replay."""

    def __init__(self, options: ReplayOptions, session: Session) -> None:
        self.options = options
        self.session = session
        self.run = _Run()
        self.rounds = 0

    def feed(self, event: Event) -> Iterator[Entry]:
        if isinstance(event, Notice):
            yield event
        elif isinstance(event, Resume):
            yield self._resume(event.line, event.state, implicit=False)
        else:
            if self.run.ended:  # a response after the run ended opens the next turn
                yield self._resume(event.line, UNDEFINED, implicit=True)
            yield from self._response(event)

    def _resume(self, line: int, state: object, *, implicit: bool) -> ResumeResult:
        """A new run: a fresh monitor from the saved (or given) state, rounds from 1 (ENG-13)."""
        self._label(f"new run at line {line}")
        if state is UNDEFINED:
            self.session.resume()
        else:
            self.session.restore(state)
        self.run = _Run(self.run.number + 1)
        return ResumeResult(line, self.run.number, state is not UNDEFINED, implicit)

    def _label(self, label: str) -> None:
        if isinstance(self.session, RecordingSession):
            self.session.label = label

    def _response(self, response: Response) -> Iterator[Entry]:
        run = self.run
        if normalize_text(response.text):
            self._label(f"text at line {response.line}")
            halted = run.stopped
            verdict = self.session.record_assistant_text(response.text)
            self._arm(verdict)
            yield TextResult(
                response.line,
                self.rounds,
                self.session.text_streak(),
                verdict,
                halted,
                bool(response.calls),
            )
        if response.server:
            self._label(f"server items at line {response.line}")
            halted = run.stopped
            records = tuple(self._server(item) for item in response.server)
            yield ServerResult(response.line, self.rounds, records, halted)
        if response.calls:
            halted = run.stopped
            run.round += 1
            self.rounds += 1
            run.decisions = {}
            self._label(f"round {self.rounds} (line {response.line})")
            identities = [
                identify(self.options.loop_keys, c.name, c.arguments) for c in response.calls
            ]
            pairs = list(zip(response.calls, identities, strict=True))
            self.session.declare_round(
                run.round, [(c.name, i.material) for c, i in pairs if i.declared]
            )
            results = tuple(
                self._checkpoint(call.name, call.call_id, identity) for call, identity in pairs
            )
            yield RoundResult(self.rounds, run.number, run.round, response.line, results, halted)
        else:
            run.ended = True

    def _arm(self, verdict: Verdict | None) -> None:
        if verdict is not None and verdict.action == "stop":
            self.run.stopped = True

    def _server(self, item: ServerItem) -> CallResult:
        name = "server:" + item.item_type
        identity = Identity("key", item.identity)
        return self._record(name, None, identity, False, "server-tool-fingerprint")

    def _checkpoint(self, name: str, call_id: str | None, identity: Identity) -> CallResult:
        """One client call's checkpoint (engine brief 2.3)."""
        if identity.kind == "exempt":
            return CallResult(name, "exempt", "exempt", call_id=call_id)
        if identity.kind == "skip":
            notes = (f"detection skipped: {identity.warning}",)
            return CallResult(name, "skipped", "skipped", call_id=call_id, notes=notes)
        return self._record(name, call_id, identity, True, "tool-fingerprint")

    def _record(
        self,
        name: str,
        call_id: str | None,
        identity: Identity,
        allow_block: bool,
        detector: DetectorKind,
    ) -> CallResult:
        """Record with the fallback chain (engine brief 2.3.4) and decision reuse (ENG-02)."""
        notes: list[str] = []
        if identity.warning is not None:
            notes.append(identity.warning)
        kind = identity.kind
        if kind == "key":
            kind = "arguments" if identity.retry is UNDEFINED else "loop key"
        round = self.run.round
        try:
            record = self.session.record_tool_call(
                name, identity.material, round, allow_block=allow_block, detector=detector
            )
        except CanonicalizationError as error:
            if identity.retry is UNDEFINED:
                notes.append(f"detection skipped: cannot fingerprint: {error}")
                return CallResult(name, "skipped", "skipped", call_id=call_id, notes=tuple(notes))
            notes.append(f"falling back to full arguments: {error}")
            kind = "fallback"
            try:
                record = self.session.record_tool_call(
                    name, identity.retry, round, allow_block=allow_block, detector=detector
                )
            except CanonicalizationError as again:
                notes.append(f"detection skipped: fallback also unhashable: {again}")
                return CallResult(name, "skipped", "skipped", call_id=call_id, notes=tuple(notes))
        key = f"{name}\n{record.fingerprint}"
        if record.duplicate_in_round:
            action = self.run.decisions.get(key, PROCEED)
            return CallResult(
                name,
                kind,
                action,
                record.fingerprint,
                record.streak,
                True,
                None,
                call_id,
                tuple(notes),
            )
        verdict = record.verdict
        action = PROCEED if verdict is None else verdict.action
        self.run.decisions[key] = action
        self._arm(verdict)
        return CallResult(
            name,
            kind,
            action,
            record.fingerprint,
            record.streak,
            False,
            verdict,
            call_id,
            tuple(notes),
        )


def replay(
    events: Iterable[Event], options: ReplayOptions, session: Session | None = None
) -> Iterator[Entry]:
    """Every entry of the replay of ``events`` (a fresh reference session unless given)."""
    driver = Replay(options, session if session is not None else Session(options.config()))
    for event in events:
        yield from driver.feed(event)
