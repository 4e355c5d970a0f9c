"""Differences between the SDK's run loop and the reference that are known (issue 30).

Each :class:`KnownDifference` names one behaviour where the SDK 0.9.0 and the
reference engine disagree and that is decided (or being decided) elsewhere,
with a *neutraliser*: a rewrite of a scenario that removes what triggers the
difference and nothing the comparison cares about otherwise (a loaded
``unsentToolResults: []`` goes, a ``when`` value ``true`` becomes the string
``"true"``, ...). :func:`classify` tells whether a difference found on a scenario
is explained by known differences: it is, when the neutralised scenario
shows no difference (and then by a smallest set of them whose neutralisers
together remove it, found by leaving each out in turn); otherwise it is a
new class, named by the first difference left on the neutralised scenario.
The campaign (:mod:`.campaign`) counts each class and keeps a minimal
scenario for it.

When the spec, the reference and the ports adopt a decision, its difference
disappears and its entry goes, so that the difference coming back is a new
class that fails the bounded campaign of ``make test``; an entry whose
difference never shows in a campaign is reported as unseen. Decided, and
gone: the lead's R1 (ENG-157), R2 (ENG-174), R3 (ENG-175), R4 (ENG-106) and
the message-content rule (ENG-177) of issue 30, and this campaign's N1, a
null option (ENG-176), and N7, a stop verdict object without a string
message (ENG-106).
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from doomloop_kit.jsvalue.utf16 import JS_WHITESPACE

Scenario = dict[str, Any]
"""A scenario in the format of spec §15.1.4, as plain JSON."""


@dataclass(frozen=True)
class KnownDifference:
    """One known difference: its key, what the SDK does, and its neutraliser."""

    key: str
    title: str
    source: str
    """Where it is reported and decided (issue, statement)."""
    neutralise: Callable[[Scenario], None]
    """Rewrites a scenario (a private copy) in place so that it cannot trigger this."""


# -- walking a scenario -------------------------------------------------------------------


def _runs(scenario: Scenario) -> Iterator[dict[str, Any]]:
    runs = scenario.get("runs")
    for run in runs if isinstance(runs, list) else []:
        if isinstance(run, dict):
            yield run


def _responses(scenario: Scenario) -> Iterator[list[Any]]:
    """The output item lists of every scripted response."""
    for run in _runs(scenario):
        model = run.get("model")
        for response in model if isinstance(model, list) else []:
            output = response.get("output") if isinstance(response, dict) else None
            if isinstance(output, list):
                yield output


# -- the neutralisers ---------------------------------------------------------------------


def _loaded(scenario: Scenario) -> dict[str, Any]:
    state = scenario.get("initialState")
    return state if isinstance(state, dict) else {}


def _lists_with_entries(scenario: Scenario) -> None:
    """Loaded pending calls and unsent results that are not a non-empty array go."""
    state = _loaded(scenario)
    for name in ("pendingToolCalls", "unsentToolResults"):
        if name in state and not (isinstance(state[name], list) and state[name]):
            del state[name]


def _unsent_entries_complete(scenario: Scenario) -> None:
    """Loaded unsent results keep only the objects with a string call id."""
    state = _loaded(scenario)
    unsent = state.get("unsentToolResults")
    if isinstance(unsent, list):
        kept = [r for r in unsent if isinstance(r, dict) and isinstance(r.get("callId"), str)]
        state["unsentToolResults"] = kept


def _messages_array(scenario: Scenario) -> None:
    """Loaded messages that are not an array become the pending calls (the history the
    harness maps a pending call back to), or ``[]``."""
    state = _loaded(scenario)
    if "messages" in state and not isinstance(state["messages"], list):
        pending = state.get("pendingToolCalls")
        state["messages"] = copy.deepcopy(pending) if isinstance(pending, list) else []


def _no_boolean_filters(scenario: Scenario) -> None:
    """``when`` values hold no boolean: each becomes the string of its JSON form."""

    def replaced(value: object) -> object:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list):
            return [replaced(item) for item in value]
        if isinstance(value, dict):
            return {name: replaced(item) for name, item in value.items()}
        return value

    hooks = scenario.get("hooks")
    for hook in hooks if isinstance(hooks, list) else []:
        if isinstance(hook, dict) and isinstance(hook.get("when"), dict):
            hook["when"] = replaced(hook["when"])


def _overflows(value: object) -> bool:
    if isinstance(value, float):
        return math.isinf(value)
    if isinstance(value, list):
        return any(_overflows(item) for item in value)
    if isinstance(value, dict):
        return any(_overflows(item) for item in value.values())
    return False


def _finite_arguments(scenario: Scenario) -> None:
    """Raw arguments holding a number beyond the double range (``1e400``) become
    ``"null"``, in scripted calls and in the loaded conversation."""
    state = _loaded(scenario)
    items = [item for output in _responses(scenario) for item in output]
    for name in ("messages", "pendingToolCalls"):
        listed = state.get(name)
        items += listed if isinstance(listed, list) else []
    for item in items:
        raw = item.get("arguments") if isinstance(item, dict) else None
        if not isinstance(raw, str):
            continue
        try:
            parsed = json.loads(raw)
        except ValueError:
            continue
        if _overflows(parsed):
            item["arguments"] = "null"


def _plain_shared_ids(scenario: Scenario) -> None:
    """Calls sharing a call id lose the members a provider adds (``id``, ``status``) and
    the white space around their raw arguments."""
    calls = [
        item
        for output in _responses(scenario)
        for item in output
        if isinstance(item, dict) and item.get("type") == "function_call"
    ]
    seen = Counter(str(item.get("callId")) for item in calls)
    for item in calls:
        if seen[str(item.get("callId"))] > 1:
            item.pop("id", None)
            item.pop("status", None)
            if isinstance(item.get("arguments"), str) and item["arguments"].strip(JS_WHITESPACE):
                item["arguments"] = item["arguments"].strip(JS_WHITESPACE)


def _pending_behind_a_pause(scenario: Scenario) -> None:
    """A loaded conversation awaiting a decision with no pending call is complete."""
    state = _loaded(scenario)
    pending = state.get("pendingToolCalls")
    waiting = state.get("status") in ("awaiting_approval", "awaiting_hitl")
    if waiting and not (isinstance(pending, list) and any(isinstance(p, dict) for p in pending)):
        state["status"] = "complete"


KNOWN: Final[tuple[KnownDifference, ...]] = (
    KnownDifference(
        "N3",
        "loaded unsentToolResults entries that are not objects, or have no callId: the SDK "
        "saves them again as loaded, and a decision resume folds each into an output item "
        "read as JS reads members (id 'output_undefined', no callId; a null entry fails "
        "the run with type-error); the reference drops the entries that are not objects "
        "and writes 'output_None' for a missing callId",
        "found by this campaign (ENG-175 now settles a missing output)",
        _unsent_entries_complete,
    ),
    KnownDifference(
        "N2",
        "loaded pendingToolCalls and unsentToolResults that are not a non-empty array "
        "([], a string, a number) are saved again as loaded by a run that does not "
        "rewrite them; the reference drops them (a string's characters are even folded "
        "as results on a decision resume)",
        "found by this campaign (ENG-159 says present while there are any)",
        _lists_with_entries,
    ),
    KnownDifference(
        "N4",
        "loaded messages that are not an array: the SDK fails the run (reason error, after "
        "SessionStart, status in_progress); the reference reads them as []",
        "found by this campaign",
        _messages_array,
    ),
    KnownDifference(
        "N5",
        "a hook's when filter: the reference compares with Python equality, so true "
        "matches the number 1 and false the number 0 (DIV-11); ENG-183 asks JSON "
        "equality (the same type), as the SDK harness and the TypeScript and Go engines do",
        "found by this campaign (the reference against ENG-183)",
        _no_boolean_filters,
    ),
    KnownDifference(
        "N6",
        "the SDK persists a pending call with its parsed arguments, which a JSON store "
        "turns from a number beyond the double range (1e400, Infinity) into null: on the "
        "decision resume its tool hooks fire and its body receives null; the reference "
        "keeps the raw string (no hook, ENG-140)",
        "found by this campaign",
        _finite_arguments,
    ),
    KnownDifference(
        "N8",
        "a decision resume of a loaded conversation awaiting approval or HITL with no "
        "pending call: the SDK saves status in_progress and fails the run with 'Neither "
        "stream nor response initialized' (sdk-error, no dispatch); the reference goes on "
        "to the resume dispatch",
        "found by this campaign",
        _pending_behind_a_pause,
    ),
    KnownDifference(
        "H1",
        "not the SDK's: its state keeps pending calls parsed ({id, name, arguments}), and "
        "the shared harness shows each as the latest history item with the same call id, "
        "name and parsed arguments, so pending calls sharing a call id whose items differ "
        "in other members (a provider's id, status) or in white space around the raw "
        "arguments come back swapped",
        "sdk-engine-harness.mjs (fromSdkState); the kit's --sdk-engine harness alike",
        _plain_shared_ids,
    ),
)


def neutralised(scenario: Mapping[str, Any], known: KnownDifference) -> Scenario | None:
    """``scenario`` without the trigger of ``known``; None when it has none."""
    copied = copy.deepcopy(dict(scenario))
    known.neutralise(copied)
    return None if copied == scenario else copied


# -- classification ------------------------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    """A difference between the two sides on one scenario: its first difference."""

    where: str
    """``run R, dispatch D, /pointer`` (or a harness error, or a failure of the reference)."""
    reason: str
    reference: Any = None
    sdk: Any = None

    @property
    def signature(self) -> str:
        """The class of a new difference: where and why, without run, dispatch and array
        indices, numbers or quoted values."""
        where = re.sub(r"run \d+, ", "", self.where)
        where = re.sub(r"dispatch \d+", "dispatch", where)
        where = re.sub(r"/\d+(?=/|$)", "/*", where)
        reason = re.split(r"[;(]", self.reason, maxsplit=1)[0].strip()
        reason = re.sub(r'"[^"]*"', "…", re.sub(r"\d+", "N", reason))
        return f"{where}: {reason}"


@dataclass(frozen=True)
class Classification:
    """A difference's class: the known differences that explain it, or a new one."""

    key: str
    """``R1``, ``R1+R3`` (known), or ``new: <signature>``."""
    known: tuple[str, ...]
    scenario: Scenario
    """The scenario that shows it (for a new class, the neutralised one)."""
    observation: Observation


Observe = Callable[[Scenario], Observation | None]
"""Runs a scenario on both sides: its first difference, or None when they agree."""


def classify(scenario: Scenario, found: Observation, observe: Observe) -> Classification:
    """The class of the difference ``found`` on ``scenario`` (module docstring)."""
    plain = copy.deepcopy(scenario)
    applicable: list[KnownDifference] = []
    for known in KNOWN:  # in order: a neutraliser may leave work for a later one
        before = copy.deepcopy(plain)
        known.neutralise(plain)
        if plain != before:
            applicable.append(known)
    if not applicable:
        return Classification(f"new: {found.signature}", (), scenario, found)
    left = observe(plain)
    if left is not None:
        return Classification(f"new: {left.signature}", (), plain, left)
    needed = list(applicable)
    for known in applicable:  # keep only the neutralisers the agreement needs
        if len(needed) > 1 and observe(_neutralised_by(scenario, needed, known)) is None:
            needed.remove(known)
    names = tuple(k.key for k in needed)
    return Classification("+".join(names), names, scenario, found)


def _neutralised_by(
    scenario: Scenario, chosen: list[KnownDifference], left_out: KnownDifference
) -> Scenario:
    """``scenario`` rewritten by the neutralisers of ``chosen`` but ``left_out``, in order."""
    copied = copy.deepcopy(scenario)
    for known in chosen:
        if known is not left_out:
            known.neutralise(copied)
    return copied
