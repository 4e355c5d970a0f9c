"""Mutant harnesses: the Python reference harness with ONE deliberate fault.

Run as ``python tests/harnesses/mutants.py NAME``. Each mutant patches the
reference in this process only, then serves protocol v1 exactly like the
real harness. The runner must fail at least one committed vector against
every mutant (tests/test_runner_mutants.py); a surviving mutant is a gap in
the vectors.

Most faults are made by editing one spot of a reference function's source
(:func:`_edit`), which keeps each mutant to the single fault it names.
"""

from __future__ import annotations
import __future__

import copy
import inspect
import json
import random
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from doomloop_kit.jsvalue import utf16, values, wire
from doomloop_kit.reference import (
    canonical,
    config,
    fingerprint,
    ladder,
    messages,
    monitor,
    state,
    text,
)
from doomloop_kit.vectorset import oracle
from doomloop_kit.vectorset.expectations import ENGINE_ORDER
from doomloop_kit.vectorset.vocabulary import ENGINE_OP


def _rebind(original: Any, replacement: Any) -> None:
    """Point every doomloop_kit module's global bound to ``original`` at ``replacement``."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("doomloop_kit") or module is None:
            continue
        for attribute, value in list(vars(module).items()):
            if value is original:
                setattr(module, attribute, replacement)


def _edit(owner: Any, name: str, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` (exactly ``count`` times) in the source of ``owner.name``."""
    function = getattr(owner, name)
    source = textwrap.dedent(inspect.getsource(function))
    assert source.count(old) == count, f"{name}: {old!r} found {source.count(old)} times"
    source = source.replace(old, new)
    module = sys.modules[function.__module__]
    namespace: dict[str, Any] = {}
    code = compile(source, f"<mutant {name}>", "exec", flags=__future__.annotations.compiler_flag)
    exec(code, vars(module), namespace)
    replacement = namespace[name]
    if inspect.isclass(owner):
        setattr(owner, name, replacement)
    else:
        _rebind(function, replacement)


def json_dumps_canonical() -> None:
    """stdlib json.dumps(sort_keys) instead of the RFC 8785 form (plain JSON values)."""
    real = canonical.canonicalize

    def fake(value: object) -> str:
        try:
            return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):
            return real(value)

    _rebind(real, fake)


def code_point_key_order() -> None:
    """Object members sorted by code points instead of UTF-16 code units."""
    utf16.sort_key = lambda text: text  # type: ignore[assignment,return-value]


def last_call_streak() -> None:
    """Declarations ignored: each call's own fingerprint stands for the round set."""
    _edit(
        monitor.DoomLoopMonitor,
        "declare_round",
        "self._declared = declared",
        "self._declared = None",
    )


def per_call_streak_ignored() -> None:
    """The reported streak is the round streak only; per-call streaks are ignored."""
    _edit(
        monitor.DoomLoopMonitor,
        "record_tool_call",
        "streak = max(round_streak, call_streak)",
        "streak = round_streak",
    )


def no_duplicate_collapsing() -> None:
    """Duplicate declared calls are kept in the round set."""
    _edit(
        monitor.DoomLoopMonitor,
        "declare_round",
        "grouped.setdefault(call.tool_name, set()).add(fingerprint)",
        "grouped.setdefault(call.tool_name, []).append(fingerprint)",
    )


def restore_without_clamping() -> None:
    """Restored tool streaks are floored but not clamped into [1, 1,000,000]."""
    _edit(
        state,
        "_tool_entry",
        "clamped = min(max(js_floor(streak), 1), MAX_RESTORED_STREAK)",
        "clamped = js_floor(streak)",
    )


def always_call_streaks() -> None:
    """getState writes callStreaks even when the round implies them."""
    _edit(state.ToolEntry, "to_json", "if not self._call_streaks_implied():", "if True:")


def python_whitespace() -> None:
    """Tokens and normalisation by Python's str.split() instead of JS whitespace."""
    _rebind(text.tokens, lambda value: value.split())
    _rebind(text.normalize_text, lambda value: " ".join(value.split()))


def block_on_text() -> None:
    """Text verdicts may block (allow_block=True)."""
    _edit(
        monitor.DoomLoopMonitor,
        "record_assistant_text",
        "allow_block=False",
        "allow_block=True",
        count=2,
    )


def escalation_budget_unchecked() -> None:
    """can_escalate ignores the number of escalations used."""
    _edit(
        monitor.DoomLoopMonitor,
        "can_escalate",
        " and self._escalations_used < escalation.max_escalations",
        "",
    )


def wrong_message() -> None:
    """The repeated-call message loses the word "exact"."""
    _edit(messages, "repeated_call", "this exact ", "this ")


def larger_period_tie() -> None:
    """Equal coverage goes to the larger period (>= instead of >)."""
    _edit(
        text,
        "detect_text_repetition",
        "covered > best.covered_tokens",
        "covered >= best.covered_tokens",
    )


def stop_below_block() -> None:
    """The ladder checks block before stop."""
    _edit(
        ladder,
        "resolve_ladder_action",
        '("stop", True),\n        ("block", allow_block),',
        '("block", allow_block),\n        ("stop", True),',
    )


def surrogate_utf8_passthrough() -> None:
    """A lone surrogate is hashed as its CESU bytes instead of U+FFFD."""
    utf16.utf8_bytes = lambda value: utf16.normalize(value).encode(  # type: ignore[assignment]
        "utf-8", "surrogatepass"
    )


def tool_name_separator() -> None:
    """Tool-call fingerprints join the tool name and the key with ':' instead of a newline."""
    _edit(
        fingerprint,
        "fingerprint_tool_call",
        'tool_name + "\\n" + canonicalize',
        'tool_name + ":" + canonicalize',
    )


def escalations_not_restored() -> None:
    """restore() forgets escalationsUsed."""
    _edit(
        monitor.DoomLoopMonitor,
        "restore",
        "self._escalations_used = parsed.escalations_used",
        "self._escalations_used = 0",
    )


def duplicate_flag_ignored() -> None:
    """duplicateInRound is always false."""
    _edit(
        monitor.DoomLoopMonitor,
        "record_tool_call",
        "duplicate = fingerprint in prev.seen",
        "duplicate = False",
    )


def bigint_canonicalized() -> None:
    """A bigint is written as its digits instead of failing canonicalization."""
    _edit(
        canonical,
        "_visit",
        'raise CanonicalizationError(CanonicalizationErrorKind.BIGINT, f"{value.digits}n")',
        "return value.digits",
    )


def negative_zero_refused() -> None:
    """-0 fails canonicalization instead of being written as 0."""
    _edit(
        canonical,
        "_number",
        "if not math.isfinite(number):",
        "if not math.isfinite(number) or (number == 0 and math.copysign(1, number) < 0):",
    )


def canonical_message_changed() -> None:
    """A bigint fails canonicalization with a message of the kit's own (CAN-33, CAN-35)."""
    _edit(
        canonical,
        "_visit",
        "CanonicalizationError(CanonicalizationErrorKind.BIGINT,",
        "CanonicalizationError(CanonicalizationErrorKind.UNSUPPORTED,",
    )


def null_option_turns_off() -> None:
    """A null option turns detection off instead of throwing (CFG-41)."""
    _edit(
        config,
        "resolve_doom_loop_option",
        "if option is UNDEFINED or option is False:",
        "if option is UNDEFINED or option is False or option is None:",
    )


def null_escalation_member_absent() -> None:
    """A null model is read as absent (present-and-not-null), not as present (CFG-44)."""
    _edit(
        config,
        "resolve_escalation",
        "if members is None or not (model is not UNDEFINED or has_advisor):",
        "if members is None or not (model not in (UNDEFINED, None) or has_advisor):",
    )


def counters_as_exact_integers() -> None:
    """Counters add one in exact integers, past 2^53 too (MON-58)."""
    _edit(values, "increment", "return plain_number(float(count) + 1.0)", "return count + 1")


def warning_text_changed() -> None:
    """The dead-rung warning words its message its own way (CFG-36)."""
    _edit(messages, "dead_rung", "can never fire", "never fires")


def shared_as_cycle() -> None:
    """Canonicalization remembers every container it met, not only the enclosing
    ones, so a shared sub-object reads as circular (CAN-19, PROT-34)."""
    _edit(canonical, "_container", "ancestors.discard(marker)", "pass")


def tag_past_the_limit_decoded() -> None:
    """Tags are decoded at any depth: no decode limit (PROT-41)."""
    vars(wire)["DECODE_DEPTH_LIMIT"] = 10_000


def bigint_plus_accepted() -> None:
    """Bigint digits may carry a leading plus sign (PROT-26 allows only a minus)."""
    _edit(
        wire,
        "_decode_tag",
        "not _BIGINT_DIGITS.fullmatch(digits)",
        'not digits.lstrip("+-").isdigit()',
    )


def _tag_decoded_as_copy(tag: str, function: str, held: str) -> None:
    """The decoder of ``tag`` returns a deep copy of the object it names."""
    vars(wire)["deepcopy"] = copy.deepcopy
    _edit(wire, function, f"return {held}", f"return deepcopy({held})")
    vars(wire)["_LABELLED"][tag] = vars(wire)[function]  # the tag table holds the function


def alias_decoded_as_copy() -> None:
    """An alias decodes to a copy of its anchor, not the same object (PROT-33)."""
    _tag_decoded_as_copy("alias", "_decode_alias", "context.anchors[name]")


def bound_decoded_as_copy() -> None:
    """A bound tag decodes to a copy of the held object, as a harness over plain
    JSON would: every request sees a fresh object and the memo never applies (PROT-37)."""
    _tag_decoded_as_copy("bound", "_decode_bound", "context.bindings[name]")


def memo_ignored() -> None:
    """The monitor fingerprints the object as it is now, with no memo (MON-60)."""
    _edit(
        monitor.DoomLoopMonitor,
        "_fingerprint_call",
        "if not isinstance(key_material, dict | list):",
        "if True:",
    )


def memo_without_tool() -> None:
    """The memo is keyed by the object alone, not by object then tool name (MON-60)."""
    _edit(
        monitor.DoomLoopMonitor,
        "_fingerprint_call",
        "if tool_name not in by_tool:",
        "if by_tool:\n        return next(iter(by_tool.values()))\n"
        "    if tool_name not in by_tool:",
    )


def restore_clears_memo() -> None:
    """restore forgets the fingerprint memo (MON-60 says it does not)."""
    _edit(
        monitor.DoomLoopMonitor,
        "restore",
        "self._escalations_used = parsed.escalations_used",
        "self._escalations_used = parsed.escalations_used; self._memo = {}",
    )


def engine_dispatch_perturbed() -> None:
    """runScenario answers with the second dispatch of the first run asking another model."""
    real = oracle.FUNCTION_OPS[ENGINE_OP]

    def fake(request: Any) -> object:
        transcript: Any = real(request)
        dispatches = transcript["runs"][0]["dispatches"] if transcript["runs"] else []
        if len(dispatches) > 1:
            dispatches[1]["request"]["model"] = "mutant-model"
        return transcript

    oracle.FUNCTION_OPS[ENGINE_OP] = fake


# -- concurrent batches (ENG-138, ENG-139): the events of a run rearranged -------------------

Reorder = Callable[[list[Any], list[Any], list[Any], list[Any], random.Random], None]
"""(events, event slots, executions, execution batches, seeded draw) -> rearranges in place."""


def _rearranged(reorder: Reorder) -> None:
    """runScenario answers the reference transcript with each run's events (and
    executions) rearranged by ``reorder``, using the order the reference gives them."""

    def fake(request: Any) -> object:
        expected: Any = oracle.engine_expectation(request)
        transcript: Any = expected["result"]
        seed = json.dumps(request.get("scenario"), sort_keys=True)
        draw = random.Random(seed)
        for run, order in zip(transcript["runs"], expected[ENGINE_ORDER], strict=True):
            reorder(run["events"], order["events"], run["executions"], order["executions"], draw)
        return transcript

    oracle.FUNCTION_OPS[ENGINE_OP] = fake


def _batches(slots: list[Any]) -> list[list[int]]:
    """The positions of each concurrent batch's events, batch by batch."""
    groups: dict[int, list[int]] = {}
    for position, slot in enumerate(slots):
        if slot is not None:
            groups.setdefault(slot[0], []).append(position)
    return list(groups.values())


def _interleave(events: list[Any], slots: list[Any], executions: list[Any],
                batches: list[Any], draw: random.Random) -> None:  # fmt: skip
    """Any interleaving threads could give: per call in order, detections in order."""
    for positions in _batches(slots):
        queues: dict[int, list[Any]] = {}
        for position in positions:
            queues.setdefault(slots[position][1], []).append(events[position])
        detections = [events[p] for p in positions if events[p]["hook"] == "DoomLoopDetected"]
        picked: list[Any] = []
        while any(queues.values()):
            ready = [
                call
                for call, queue in queues.items()
                if queue and (queue[0]["hook"] != "DoomLoopDetected" or queue[0] is detections[0])
            ]
            call = draw.choice(ready)
            event = queues[call].pop(0)
            if detections and event is detections[0]:
                detections.pop(0)
            picked.append(event)
        for position, event in zip(positions, picked, strict=True):
            events[position] = event
    for batch in {b for b in batches if b is not None}:
        members = [i for i, b in enumerate(batches) if b == batch]
        shuffled = [executions[i] for i in members]
        draw.shuffle(shuffled)
        for position, execution in zip(members, shuffled, strict=True):
            executions[position] = execution


def _pre_before_checkpoint(events: list[Any], slots: list[Any], *_: Any) -> None:
    """A call's PreToolUse before its own DoomLoopDetected: its body before its checkpoint."""
    for position, (event, slot) in enumerate(zip(events, slots, strict=True)):
        if slot is not None and event["hook"] == "DoomLoopDetected":
            after = position + 1
            if (
                after < len(events)
                and slots[after] == slot
                and events[after]["hook"] == "PreToolUse"
            ):
                events[position], events[after] = events[after], event
                return


def _checkpoints_swapped(events: list[Any], slots: list[Any], *_: Any) -> None:
    """The first two detections of a batch in the wrong order."""
    for positions in _batches(slots):
        found = [p for p in positions if events[p]["hook"] == "DoomLoopDetected"]
        if len(found) >= 2:
            events[found[0]], events[found[1]] = events[found[1]], events[found[0]]
            return


def _post_after_next(events: list[Any], slots: list[Any], *_: Any) -> None:
    """A batch's last Post* hook moved after the first event that follows the batch."""
    for positions in _batches(slots):
        end = positions[-1]
        if end + 1 < len(events) and events[end]["hook"].startswith("PostToolUse"):
            events.insert(end + 1, events.pop(end))
            return


INTERLEAVED: dict[str, Callable[[], None]] = {
    "engine-interleaved": lambda: _rearranged(_interleave),
}
"""Harnesses that rearrange events as threads may: they must pass (ENG-139)."""


MUTANTS: dict[str, Callable[[], None]] = {
    "json-dumps-canonical": json_dumps_canonical,
    "code-point-key-order": code_point_key_order,
    "last-call-streak": last_call_streak,
    "per-call-streak-ignored": per_call_streak_ignored,
    "no-duplicate-collapsing": no_duplicate_collapsing,
    "restore-without-clamping": restore_without_clamping,
    "always-call-streaks": always_call_streaks,
    "python-whitespace": python_whitespace,
    "block-on-text": block_on_text,
    "escalation-budget-unchecked": escalation_budget_unchecked,
    "wrong-message": wrong_message,
    "larger-period-tie": larger_period_tie,
    "stop-below-block": stop_below_block,
    "surrogate-utf8-passthrough": surrogate_utf8_passthrough,
    "tool-name-separator": tool_name_separator,
    "escalations-not-restored": escalations_not_restored,
    "duplicate-flag-ignored": duplicate_flag_ignored,
    "bigint-canonicalized": bigint_canonicalized,
    "negative-zero-refused": negative_zero_refused,
    "canonical-message-changed": canonical_message_changed,
    "null-option-turns-off": null_option_turns_off,
    "null-escalation-member-absent": null_escalation_member_absent,
    "counters-as-exact-integers": counters_as_exact_integers,
    "warning-text-changed": warning_text_changed,
    "shared-as-cycle": shared_as_cycle,
    "tag-past-the-limit-decoded": tag_past_the_limit_decoded,
    "bigint-plus-accepted": bigint_plus_accepted,
    "alias-decoded-as-copy": alias_decoded_as_copy,
    "bound-decoded-as-copy": bound_decoded_as_copy,
    "memo-ignored": memo_ignored,
    "memo-without-tool": memo_without_tool,
    "restore-clears-memo": restore_clears_memo,
    "engine-dispatch-perturbed": engine_dispatch_perturbed,
    "engine-pre-before-checkpoint": lambda: _rearranged(_pre_before_checkpoint),
    "engine-checkpoints-swapped": lambda: _rearranged(_checkpoints_swapped),
    "engine-post-after-next-dispatch": lambda: _rearranged(_post_after_next),
}


def main() -> int:
    known = {**MUTANTS, **INTERLEAVED}
    if len(sys.argv) != 2 or sys.argv[1] not in known:
        print(f"usage: mutants.py {{{','.join(known)}}}", file=sys.stderr)
        return 2
    known[sys.argv[1]]()
    from doomloop_kit.conformance.harnesses import python_reference

    assert vars(python_reference)["oracle"] is oracle  # the harness runs the patched oracle
    return python_reference.main()


if __name__ == "__main__":
    sys.exit(main())
