"""The doom-loop monitor: a pure state machine over a transcript (spec section 9, MON-01..MON-62).

Feed it tool calls and assistant texts; it returns records and verdicts.
Recording every call of one W-wide declared round costs O(W) in total:
membership tests use sets, and the one comparison of a whole round set with
the previous round's is made once per round and cached (MON-55, MON-56).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from doomloop_kit.jsvalue.values import UNDEFINED, increment, to_double, truthy

from . import messages
from .canonical import CanonicalizationError
from .config import ResolvedConfig, TextOptions
from .fingerprint import fingerprint_key_material, fingerprint_tool_call
from .ladder import ACTION_STRENGTH, resolve_ladder_action
from .state import MonitorState, TextStreak, ToolEntry, parse_state, serialize_state
from .text import detect_text_repetition, normalize_text
from .verdicts import CallRecord, DetectorKind, Verdict


@dataclass(frozen=True)
class ToolCall:
    """One call of a declared round: the tool and its key material."""

    tool_name: str
    key_material: object


@dataclass
class DeclaredRound:
    """The complete call set of one round, per tool, sorted and distinct (MON-09)."""

    round: float
    sets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    members: dict[str, frozenset[str]] = field(default_factory=dict)


def _text_detection_options(text: TextOptions) -> Mapping[str, object]:
    return {
        "maxPeriodTokens": text.max_period_tokens,
        "minRepeats": text.min_repeats,
        "minCoveredTokens": text.min_covered_tokens,
        "maxWindowTokens": text.max_window_tokens,
    }


class DoomLoopMonitor:
    """Round-scoped streaks per tool, text detectors and an escalation budget (MON-01)."""

    def __init__(
        self,
        config: ResolvedConfig,
        initial_state: object = UNDEFINED,
        warn: Callable[..., None] | None = None,
    ) -> None:
        """Build a monitor; with ``initial_state`` it is construct-then-restore (MON-05, MON-06).

        Leave ``initial_state`` out (:data:`~doomloop_kit.jsvalue.values.UNDEFINED`) for a fresh
        monitor; any other value, JSON ``null`` included, is restored. ``warn``
        receives the monitor's logs with the arguments JS ``console.warn``
        gets (MON-62, STATE-34); by default they are dropped.
        """
        self._warn: Callable[..., None] = warn or (lambda *args: None)
        self.config = config
        self._tools: dict[str, ToolEntry] = {}
        self._text: TextStreak | None = None
        self._escalations_used: int | float = 0
        self._declared: DeclaredRound | None = None
        self._memo: dict[int, tuple[object, dict[str, str]]] = {}
        if initial_state is not UNDEFINED:
            self.restore(initial_state)

    # -- the fingerprint memo -----------------------------------------------

    def _fingerprint_call(self, tool_name: str, key_material: object) -> str:
        """The call fingerprint through the per-object memo (MON-60).

        Keyed by the identity of a dict or list, then the tool name: the first
        fingerprint computed for the pair is reused for the monitor's lifetime,
        even after the object was mutated. Python dicts and lists take no weak
        references, so the memo holds each object (a JS WeakMap would not);
        keeping it also keeps its ``id`` from being reused by another object.
        """
        if not isinstance(key_material, dict | list):
            return fingerprint_tool_call(tool_name, key_material)
        held, by_tool = self._memo.get(id(key_material), (key_material, {}))
        if tool_name not in by_tool:
            by_tool[tool_name] = fingerprint_tool_call(tool_name, key_material)
            self._memo[id(key_material)] = (held, by_tool)
        return by_tool[tool_name]

    # -- declaration -------------------------------------------------------

    def declare_round(self, round: float, calls: Iterable[ToolCall]) -> list[str]:
        """Declare the complete set of calls a round will make (MON-07..MON-12).

        Replaces any earlier declaration. A call whose key material cannot be
        canonicalized is left out and logged: ``warn(text, error)`` with the
        SDK's exact text (MON-62). Returns those texts, in call order.
        """
        round = to_double(round)
        grouped: dict[str, set[str]] = {}
        warnings: list[str] = []
        for call in calls:
            try:
                fingerprint = self._fingerprint_call(call.tool_name, call.key_material)
            except CanonicalizationError as error:
                text = messages.declare_unfingerprintable(call.tool_name, round)
                self._warn(text, error)
                warnings.append(text)
                continue
            grouped.setdefault(call.tool_name, set()).add(fingerprint)
        declared = DeclaredRound(round)
        for tool_name, fingerprints in grouped.items():
            declared.sets[tool_name] = tuple(sorted(fingerprints))
            declared.members[tool_name] = frozenset(fingerprints)
        self._declared = declared
        return warnings

    # -- tool calls --------------------------------------------------------

    def record_tool_call(
        self,
        tool_name: str,
        key_material: object,
        round: float,
        *,
        allow_block: bool = True,
        detector: DetectorKind = "tool-fingerprint",
    ) -> CallRecord:
        """Record one tool call; return its streak record and any verdict (MON-14..MON-39).

        Raises :class:`~.canonical.CanonicalizationError` for unhashable key
        material (the caller falls back to another identity).
        """
        fingerprint = self._fingerprint_call(tool_name, key_material)
        round = to_double(round)  # rounds compare as the doubles JS holds (DATA-09)
        prev = self._tools.get(tool_name)
        same_round = prev is not None and prev.round is not None and prev.round == round
        declared: tuple[str, ...] | None = None
        member = False
        if self._declared is not None and self._declared.round == round:
            declared = self._declared.sets.get(tool_name)
            member = declared is not None and fingerprint in self._declared.members[tool_name]

        if prev is not None and same_round:
            duplicate = fingerprint in prev.seen
            prior_set, prior_streak = prev.prior_set, prev.prior_streak
            prior_calls, prior_match = prev.prior_calls, prev.prior_match
            seen, call_streaks = prev.seen, prev.call_streaks
        else:
            duplicate = False
            prior_set = prev.round_set if prev is not None else None
            prior_streak = prev.streak if prev is not None else 0
            prior_calls = prev.call_streaks if prev is not None else {}
            prior_match, seen, call_streaks = None, set(), {}

        def score(candidate: tuple[str, ...]) -> int | float:
            """prior streak + 1 (in doubles, MON-58) when the set equals the prior round's."""
            nonlocal prior_match
            if prior_set is None:
                return 1
            if len(candidate) == 1:  # cheap; no need to cache
                return increment(prior_streak) if prior_set == candidate else 1
            if prior_match is None or prior_match[0] is not candidate:
                prior_match = (candidate, prior_set == candidate)
            return increment(prior_streak) if prior_match[1] else 1

        call_streak = increment(prior_calls.get(fingerprint, 0))
        call_set = declared if member and declared is not None else (fingerprint,)
        round_streak = score(call_set)
        round_set = declared if declared is not None else (fingerprint,)

        seen.add(fingerprint)
        call_streaks[fingerprint] = call_streak
        keeps_fingerprint = declared is not None and not member and prev is not None
        self._tools[tool_name] = ToolEntry(
            fingerprint=prev.fingerprint if keeps_fingerprint and prev is not None else fingerprint,
            streak=score(round_set),
            round_set=round_set,
            call_streaks=call_streaks,
            round=round,
            seen=seen,
            prior_set=prior_set,
            prior_streak=prior_streak,
            prior_calls=prior_calls,
            prior_match=prior_match,
        )

        streak = max(round_streak, call_streak)
        action = resolve_ladder_action(
            self.config.ladder, streak, allow_block=allow_block, allow_escalate=self.can_escalate()
        )
        verdict = None
        if action is not None:
            if call_streak > round_streak or not member:
                message = messages.repeated_call(tool_name)
            elif len(call_set) > 1:
                message = messages.repeated_fan_out(tool_name, round_streak, call_set)
            else:
                message = messages.repeated_arguments(tool_name, round_streak, fingerprint)
            verdict = Verdict(detector, action, streak, fingerprint, message, tool_name)
        return CallRecord(fingerprint, streak, duplicate, verdict)

    # -- assistant text ----------------------------------------------------

    def record_assistant_text(self, text: str) -> Verdict | None:
        """Record one step's assistant text; return the stronger text verdict (MON-41..MON-50)."""
        options = self.config.text
        if not truthy(options.enabled):  # JS truthiness (MON-59)
            return None
        normalized = normalize_text(text)
        if not normalized:
            return None
        allow_escalate = self.can_escalate()

        within: Verdict | None = None
        found = detect_text_repetition(normalized, _text_detection_options(options))
        if found is not None:
            action = resolve_ladder_action(
                self.config.ladder, found.repeats, allow_block=False, allow_escalate=allow_escalate
            )
            if action is not None:
                within = Verdict(
                    "text-repetition",
                    action,
                    found.repeats,
                    fingerprint_key_material(found.sample),
                    messages.repeated_block(found.sample, found.repeats),
                )

        fingerprint = fingerprint_key_material(normalized)
        previous = self._text
        same = previous is not None and previous.fingerprint == fingerprint
        streak = increment(previous.streak) if same and previous is not None else 1
        self._text = TextStreak(fingerprint, streak)
        across: Verdict | None = None
        action = resolve_ladder_action(
            self.config.ladder, streak, allow_block=False, allow_escalate=allow_escalate
        )
        if action is not None:
            across = Verdict(
                "text-streak", action, streak, fingerprint, messages.repeated_text(streak)
            )

        if within is None or (
            across is not None and ACTION_STRENGTH[across.action] > ACTION_STRENGTH[within.action]
        ):
            return across
        return within

    def reset_text_streak(self) -> None:
        """Forget the cross-step text streak; tool streaks are kept (MON-51)."""
        self._text = None

    # -- escalation budget -------------------------------------------------

    def can_escalate(self) -> bool:
        """An escalation mechanism is configured and its budget is not spent (MON-52)."""
        escalation = self.config.escalation
        return escalation is not None and self._escalations_used < escalation.max_escalations

    def consume_escalation(self) -> None:
        """Spend one escalation, unconditionally, counting in doubles (MON-54, MON-58)."""
        self._escalations_used = increment(self._escalations_used)

    # -- persistence -------------------------------------------------------

    def get_state(self) -> dict[str, object]:
        """A fresh plain-JSON snapshot of the persisted state (STATE-01)."""
        return serialize_state(self._tools, self._text, self._escalations_used)

    def restore(self, blob: object) -> bool:
        """Replace the state from a blob, fail-open (STATE-12..STATE-15).

        Returns False (and changes nothing) when the blob is not an object.
        The round declaration is run-local and is kept.
        """
        parsed: MonitorState | None = parse_state(blob)
        if parsed is None:
            self._warn(messages.INVALID_STATE)  # one argument (STATE-34)
            return False
        self._tools, self._text = parsed.tools, parsed.text
        self._escalations_used = parsed.escalations_used
        return True
