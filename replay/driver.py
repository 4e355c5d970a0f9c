"""The replay: a log's responses fed to the reference engine's detection, in the engine's order.

For each model response, in order (ENG-124..ENG-126): the response
checkpoint (text, then server items), then -- when the response has client
calls -- a round: the engine opens and declares it and checks each call in
emission order (:mod:`.session` holds the engine's objects; no identity or
detection code lives here). A ``resume`` record starts a new run from the
saved state (ENG-114, ENG-117); so does a response that follows a response
without client calls, since such a response ends the engine's run. A
sub-agent's conversation (a :class:`~.events.Thread`) is replayed with an
engine and monitor of its own, as an SDK sub-agent runs its own loop;
switching between conversations keeps each one's state.

Without ``--engine`` the log is fed as recorded to the end: what follows a
stop is what the monitor would have said had the run gone on (``halted``),
and no escalation budget is spent. With ``--engine`` the engine's
consequences apply between responses: the steer text it would have injected
(ENG-65), the escalation it would have applied to the next dispatch,
spending budget (ENG-71..ENG-73), and the halt at a stop gate (ENG-126
gates A and B), after which the rest of the run is not replayed.

:func:`replay` yields one entry per round, text check, server check, engine
consequence, resume, closed streak (:mod:`.results`), notice and check the
engine could not run (:class:`SkippedCheck`); it keeps nothing from earlier
responses but the engine's state.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from doomloop_kit.engine.identity import Call as EngineCall
from doomloop_kit.reference import UNDEFINED, Verdict
from doomloop_kit.reference.ladder import ACTION_STRENGTH

from .events import Conversation, Event, Notice, Response, Result, Resume, Skipped, Thread
from .options import ReplayOptions
from .results import ResultAwareness, StreakResult
from .session import Attempt, Session, engine_call

PROCEED = "proceed"
BLOCKING = frozenset({"block", "stop"})
"""Applied actions under which a client call is not executed (ENG-78, ENG-83)."""


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
    """One text check of a response with non-blank text (ENG-109, MON-41)."""

    line: int
    after_round: int
    streak: float
    verdict: Verdict | None
    halted: bool = False
    in_round: bool = False
    """True when the response also makes calls (its round is ``after_round + 1``)."""
    applied: str | None = None
    """The action the engine applies (ENG-94, ENG-95), when there is a verdict."""

    @property
    def action(self) -> str | None:
        return self.applied


@dataclass(frozen=True)
class SkippedCheck:
    """A check the engine could not run and skipped (ENG-111: a failing text check never
    fails the run), most often for want of memory. The live engine skips it too, but
    a replay that says nothing would pass off "could not check" as "nothing fired": the
    replay names it, counts it, and ends with exit status 2."""

    line: int
    after_round: int
    check: str
    """``text``."""
    reason: str
    """The exception that stopped it, ``MemoryError`` say."""

    def describe(self) -> str:
        return (
            f"the {self.check} check could not run ({self.reason}); the engine skipped it, "
            "so this replay may miss a verdict"
        )


@dataclass(frozen=True)
class ServerResult:
    """The server-tool records of one response (ENG-56..ENG-58)."""

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


@dataclass(frozen=True)
class ConversationResult:
    """A new, independent conversation of the same file (a fresh engine and monitor)."""

    line: int
    run_id: str
    outcome: object = None


@dataclass(frozen=True)
class ThreadResult:
    """The entries that follow belong to another conversation of the log: a sub-agent's
    (``name``), or the log's own again (None). ``first`` marks its first appearance."""

    line: int
    name: str | None
    session: str | None = None
    mirror: bool = False
    first: bool = False


@dataclass(frozen=True)
class EngineResult:
    """What the engine would have done between responses (``--engine`` only).

    ``kind``: ``steer`` (``message`` injected before the next dispatch),
    ``escalate`` (the next dispatch escalated, one unit of budget spent),
    ``halt`` (the run ends at a stop gate; ``count`` calls sealed) or
    ``not-replayed`` (``count`` responses of a halted run the engine never
    asked for).
    """

    kind: str
    line: int
    after_round: int
    message: str = ""
    count: int = 0


Entry = (
    RoundResult
    | TextResult
    | SkippedCheck
    | ServerResult
    | ResumeResult
    | ConversationResult
    | ThreadResult
    | EngineResult
    | StreakResult
    | Notice
    | Skipped
)


def strongest(actions: Iterable[str]) -> str | None:
    rungs = [a for a in actions if a in ACTION_STRENGTH]
    return max(rungs, key=ACTION_STRENGTH.__getitem__, default=None)


@dataclass
class _Run:
    number: int = 1
    round: int = 0
    ended: bool = False
    """The run's last response made no client call: the engine's loop has exited."""
    dispatched: bool = False
    """A round ran: the next response of this run answers a follow-up dispatch."""
    halted_at: int = 0
    """Line where the engine halted the run (``--engine``), 0 while it runs."""
    not_replayed: int = 0
    decisions: dict[str, str] = field(default_factory=dict)
    """Server records' applied actions by tool and fingerprint, for in-round duplicates."""


@dataclass
class _Conversation:
    """What the replay keeps of one conversation: its engine's objects and its runs."""

    session: Session
    run: _Run = field(default_factory=_Run)
    rounds: int = 0
    results: ResultAwareness = field(default_factory=ResultAwareness)


class Replay:
    """Feeds events to a session; one instance per replay.

    ``session`` replays the log's own conversation; each sub-agent's gets a fresh
    one (not recording: ``--port`` compares the log's own conversation)."""

    def __init__(self, options: ReplayOptions, session: Session) -> None:
        self.options = options
        self.engine = options.engine
        self.state = _Conversation(session)
        self.threads: dict[str | None, _Conversation] = {None: self.state}
        self.thread: str | None = None
        self.calls_without_id = 0

    @property
    def session(self) -> Session:
        return self.state.session

    def feed(self, event: Event) -> Iterator[Entry]:
        if isinstance(event, Notice | Skipped):
            yield event
        elif isinstance(event, Result):
            self.state.results.result(event)
        elif isinstance(event, Resume):
            yield from self._resume(event.line, event.state, implicit=False)
        elif isinstance(event, Conversation):
            yield from self._conversation(event)
        elif isinstance(event, Thread):
            yield self._switch(event)
        else:
            if self.state.run.ended:  # a response after the run ended opens the next turn
                yield from self._resume(event.line, UNDEFINED, implicit=True)
            yield from self._response(event)

    def finish(self) -> Iterator[Entry]:
        """The end of the log: every conversation's last run and open streaks end."""
        current = self.thread
        for name in list(self.threads):
            if len(self.threads) > 1:
                yield ThreadResult(0, name)
            self.thread, self.state = name, self.threads[name]
            yield from self._end_run()
            yield from self.state.results.close_all()
        self.thread, self.state = current, self.threads[current]

    def _switch(self, event: Thread) -> ThreadResult:
        first = event.name not in self.threads
        if first:
            options = self.options
            self.threads[event.name] = _Conversation(Session(options.config(), options.loop_keys))
        self.thread, self.state = event.name, self.threads[event.name]
        return ThreadResult(event.line, event.name, event.session, event.mirror, first)

    def _end_run(self) -> Iterator[Entry]:
        run = self.state.run
        if run.not_replayed:
            rounds = self.state.rounds
            yield EngineResult("not-replayed", run.halted_at, rounds, count=run.not_replayed)
            run.not_replayed = 0

    def _conversation(self, event: Conversation) -> Iterator[Entry]:
        yield from self.finish()
        self.session.label = f"conversation {event.run_id} at line {event.line}"
        self.session.restore({})  # a fresh monitor: nothing carried over
        self.session.mark()
        self.state.run = _Run()
        self.state.rounds = 0
        self.state.results = ResultAwareness()
        yield ConversationResult(event.line, event.run_id, event.outcome)

    def _resume(self, line: int, state: object, *, implicit: bool) -> Iterator[Entry]:
        """A new run: the engine's objects afresh over the saved (or given) state (ENG-13)."""
        yield from self._end_run()
        self.session.label = f"new run at line {line}"
        if state is UNDEFINED:
            self.session.resume()
        else:
            self.session.restore(state)
        self.session.mark()
        self.state.run = _Run(self.state.run.number + 1)
        yield ResumeResult(line, self.state.run.number, state is not UNDEFINED, implicit)

    def _response(self, response: Response) -> Iterator[Entry]:
        run = self.state.run
        if run.halted_at:  # --engine: the engine asked for no more responses in this run
            run.ended = not response.calls
            run.not_replayed += 1
            return
        session = self.session
        if run.dispatched:
            run.dispatched = False
            escalated = session.follow_up(spend=self.engine)
            if escalated is not None:
                yield EngineResult("escalate", response.line, self.state.rounds, escalated.message)
        halted = session.stop_armed
        session.label = f"response at line {response.line}"
        session.check_response(response)
        session.mark()
        failure = session.monitor.take_text_failure()
        if failure is not None:
            reason = f"{type(failure).__name__}: {failure}".removesuffix(": ")
            yield SkippedCheck(response.line, self.state.rounds, "text", reason)
        text_verdict = session.monitor.text_verdict
        applied = session.take_applied()
        if session.monitor.text_checked:
            yield TextResult(
                response.line,
                self.state.rounds,
                session.monitor.text_streak(),
                text_verdict,
                halted,
                bool(response.calls),
                applied.pop(0) if text_verdict is not None else None,
            )
        attempts = session.monitor.take_attempts()
        if attempts:
            records = tuple(self._server(attempt, applied) for attempt in attempts)
            yield ServerResult(response.line, self.state.rounds, records, halted)
        session.take_warnings()
        if not response.calls:
            run.ended = True
            return
        if self.engine and session.stop_armed:  # gate A: the calls are sealed
            yield from self._halt(response.line, len(response.calls))
            return
        yield self._round(response, halted)
        yield from self.state.results.take_closed()
        if self.engine and session.stop_armed:  # gate B
            yield from self._halt(response.line, 0)
            return
        steer = session.flush_steer()
        if steer is not None and self.engine:
            yield EngineResult("steer", response.line, self.state.rounds, steer)
        run.dispatched = True

    def _halt(self, line: int, sealed: int) -> Iterator[Entry]:
        self.state.run.halted_at = line
        yield EngineResult("halt", line, self.state.rounds, count=sealed)

    def _round(self, response: Response, halted: bool) -> RoundResult:
        run = self.state.run
        run.round += 1
        self.state.rounds += 1
        run.decisions = {}
        session = self.session
        session.label = f"round {self.state.rounds} (line {response.line})"
        calls = []
        notes: list[str | None] = []
        for call in response.calls:
            self.calls_without_id += call.call_id is None
            call_id = call.call_id or f"replay-call-{self.calls_without_id}"
            converted, note = engine_call(call, call_id)
            calls.append(converted)
            notes.append(note)
        session.open_round(calls)
        session.take_warnings()  # declaration warnings: each call's own follow
        results = tuple(
            self._checkpoint(original.call_id, converted, note)
            for original, converted, note in zip(response.calls, calls, notes, strict=True)
        )
        session.mark()
        for result in results:
            self.state.results.called(result, self.state.rounds)
        return RoundResult(self.state.rounds, run.number, run.round, response.line, results, halted)

    def _checkpoint(self, call_id: str | None, call: EngineCall, note: str | None) -> CallResult:
        """One client call through the engine's checkpoint (ENG-44..ENG-54)."""
        session = self.session
        decision = session.checkpoint(call)
        attempts = session.monitor.take_attempts()
        notes = ([note] if note else []) + session.take_warnings()
        session.take_applied()
        name = call.name
        if not attempts or attempts[-1].record is None:
            kind = "exempt" if not attempts and not notes else "skipped"
            return CallResult(name, kind, kind, call_id=call_id, notes=tuple(notes))
        record = attempts[-1].record
        if call.malformed:
            identity = "malformed"
        elif len(attempts) > 1 or notes:
            identity = "fallback"
        elif session.has_loop_key(name):
            identity = "loop key"
        else:
            identity = "arguments"
        return CallResult(
            name,
            identity,
            decision.action,
            record.fingerprint,
            record.streak,
            record.duplicate_in_round,
            None if record.duplicate_in_round else record.verdict,
            call_id,
            tuple(notes),
        )

    def _server(self, attempt: Attempt, applied: list[str]) -> CallResult:
        """A server item's record (ENG-56..ENG-58): never blocks (ENG-94)."""
        record = attempt.record
        if record is None:
            return CallResult(attempt.tool, "skipped", "skipped")
        key = f"{attempt.tool}\n{record.fingerprint}"
        if record.duplicate_in_round:
            action = self.state.run.decisions.get(key, PROCEED)
            verdict = None
        else:
            verdict = record.verdict
            action = applied.pop(0) if verdict is not None else PROCEED
            self.state.run.decisions[key] = action
        return CallResult(
            attempt.tool,
            "arguments",
            action,
            record.fingerprint,
            record.streak,
            record.duplicate_in_round,
            verdict,
        )


def replay(
    events: Iterable[Event], options: ReplayOptions, session: Session | None = None
) -> Iterator[Entry]:
    """Every entry of the replay of ``events`` (a fresh session unless given)."""
    if session is None:
        session = Session(options.config(), options.loop_keys)
    driver = Replay(options, session)
    for event in events:
        yield from driver.feed(event)
    yield from driver.finish()
