"""Feeding the monitor: rounds, declarations, checkpoints and response checks.

ENG-31..ENG-60 and ENG-109..ENG-113. One :class:`Detection` exists per run
with detection on; with detection off the run has none (ENG-27).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, cast

from doomloop_kit.reference import (
    UNDEFINED,
    CallRecord,
    CanonicalizationError,
    DetectorKind,
    DoomLoopMonitor,
    LoopKeyResolution,
    ToolCall,
)

from .actions import Actions
from .identity import Call, IdentityResolver, Malformed, ResolutionError, retry_identity
from .scenario import Scenario

SERVER_ITEM_EXCLUDED: Final = frozenset(
    {"id", "type", "status", "output", "result", "results", "error"}
)
NOT_SERVER_ITEMS: Final = frozenset({"message", "reasoning", "function_call"})


@dataclass(frozen=True)
class Decision:
    """The applied action for a call and the verdict message (ENG-53)."""

    action: str
    message: str | None = None

    @property
    def blocks(self) -> bool:
        """Block and stop both refuse the call at a client checkpoint (ENG-79, ENG-83)."""
        return self.action in ("block", "stop")


PROCEED: Final = Decision("proceed")
KEYED: Final = ("key", "fallback")
"""The loop-key resolutions that give key material, so the call joins the round set (ENG-39)."""
_DUPLICATE_ID: Final = object()


def _texts(message: Mapping[str, object]) -> list[str]:
    """The texts of a message's ``output_text`` parts; the scenario reader made sure
    that ``content`` is a list of objects and every such text a string (ENG-23)."""
    parts = cast(list[Mapping[str, object]], message["content"])
    return [cast(str, part["text"]) for part in parts if part.get("type") == "output_text"]


def response_text(output: tuple[Mapping[str, object], ...]) -> str:
    """The response's text: the ``output_text`` parts of its first ``message`` item,
    joined; ``""`` when that item has none or there is no message item (ENG-157: a
    scripted response carries no ``outputText`` of its own)."""
    for item in output:
        if item.get("type") == "message":
            return "".join(_texts(item))
    return ""


def server_identity(item: Mapping[str, object]) -> dict[str, object]:
    """Every member but the excluded ones; ``__proto__`` is data (ENG-57)."""
    return {name: value for name, value in item.items() if name not in SERVER_ITEM_EXCLUDED}


class Detection:
    """The monitor with the engine's round counter, decision table and identity cache."""

    def __init__(
        self,
        scenario: Scenario,
        monitor: DoomLoopMonitor,
        actions: Actions,
        identity: IdentityResolver,
        warnings: list[str],
    ) -> None:
        self._scenario = scenario
        self.monitor = monitor
        self.actions = actions
        self._identity = identity
        self._warnings = warnings
        self.round = 0  # ENG-32
        self._decisions: dict[str, Decision] = {}
        self._cache: dict[str, object] = {}

    # -- rounds ----------------------------------------------------------------

    def open_round(self, batch: list[Call]) -> None:
        """Open a round, clear its tables, declare its calls (ENG-32, ENG-33, ENG-35..ENG-43).

        Only calls whose identity resolved take part in the duplicate-id step
        (ENG-152): a malformed, manual, unknown or unresolvable call
        sharing an id with a resolved call leaves that call's cache entry in place.
        """
        self.round += 1
        self._decisions.clear()
        self._cache.clear()
        declared: list[ToolCall] = []
        resolved: list[tuple[Call, tuple[LoopKeyResolution, object]]] = []
        for call in batch:
            tool = self._scenario.tool(call.name)
            if tool is None or not tool.executable:
                continue  # ENG-36
            if isinstance(call.arguments, Malformed):
                declared.append(ToolCall(call.name, call.arguments.raw))  # ENG-37
                continue
            try:
                resolution = self._identity.resolve(call)
            except ResolutionError as error:  # ENG-40
                self._warnings.append(
                    f'[DoomLoop] could not resolve loop identity for "{call.name}" while '
                    f"declaring the round; excluding it from the round set: {error}"
                )
                continue
            resolved.append((call, resolution))
            if resolution[0].kind in KEYED:
                declared.append(ToolCall(call.name, resolution[0].key_material))  # ENG-39
        id_counts = Counter(call.call_id for call, _ in resolved)
        for call, resolution in resolved:  # ENG-41, ENG-152
            self._cache[call.call_id] = _DUPLICATE_ID if id_counts[call.call_id] > 1 else resolution
        self._warnings.extend(self.monitor.declare_round(self.round, declared))  # ENG-43

    # -- evaluations -----------------------------------------------------------

    def _record(
        self,
        tool_name: str,
        key_material: object,
        retry: object,
        *,
        allow_block: bool,
        detector: DetectorKind,
    ) -> CallRecord | None:
        """Record through the fallback chain; None when detection is skipped (ENG-50)."""
        try:
            return self.monitor.record_tool_call(
                tool_name, key_material, self.round, allow_block=allow_block, detector=detector
            )
        except CanonicalizationError as error:
            if retry is UNDEFINED:
                self._warnings.append(
                    f'[DoomLoop] could not fingerprint call to "{tool_name}"; skipping '
                    f"detection for this call: {error}"
                )
                return None
            self._warnings.append(
                f'[DoomLoop] could not fingerprint call to "{tool_name}"; falling back to '
                f"full arguments: {error}"
            )
        try:
            return self.monitor.record_tool_call(
                tool_name, retry, self.round, allow_block=allow_block, detector=detector
            )
        except CanonicalizationError as error:
            self._warnings.append(
                f'[DoomLoop] fallback identity for "{tool_name}" also unhashable; skipping '
                f"detection for this call: {error}"
            )
            return None

    def _decide(self, tool_name: str, record: CallRecord | None, tool_input: object) -> Decision:
        """Reuse a duplicate's decision, or apply a new verdict (ENG-53, ENG-54, ENG-61)."""
        if record is None:
            return PROCEED
        key = f"{tool_name}\n{record.fingerprint}"
        if record.duplicate_in_round:
            return self._decisions.get(key, PROCEED)
        decision = PROCEED
        if record.verdict is not None:
            action = self.actions.apply(record.verdict, tool_input)
            decision = Decision(action, record.verdict.message)
        self._decisions[key] = decision
        return decision

    def check_malformed(self, call: Call, raw: str) -> Decision:
        """The malformed path: record the raw string, no retry identity (ENG-45)."""
        record = self._record(
            call.name, raw, UNDEFINED, allow_block=True, detector="tool-fingerprint"
        )
        return self._decide(call.name, record, UNDEFINED)

    def check_call(self, call: Call) -> Decision:
        """The per-call checkpoint of a parsed call (ENG-44, ENG-46..ENG-49)."""
        cached = self._cache.get(call.call_id)
        if isinstance(cached, tuple):
            resolution, args = cached
        else:
            try:
                resolution, args = self._identity.resolve(call)
            except ResolutionError as error:
                self._warnings.append(
                    f'[DoomLoop] could not resolve loop identity for "{call.name}"; skipping '
                    f"detection for this call: {error}"
                )
                return PROCEED
        match resolution.kind:
            case "exempt":
                return PROCEED  # ENG-47
            case "fallback":
                self._warnings.append(
                    f'[DoomLoop] tool "{call.name}": {resolution.warning}'
                )  # ENG-48
        record = self._record(
            call.name,
            resolution.key_material,
            retry_identity(resolution, args),
            allow_block=True,
            detector="tool-fingerprint",
        )
        return self._decide(call.name, record, call.arguments)

    def check_response(self, output: tuple[Mapping[str, object], ...]) -> None:
        """The response checkpoint: text, then server items in order (ENG-109, ENG-56..ENG-58)."""
        try:
            verdict = self.monitor.record_assistant_text(response_text(output))
        except Exception as error:  # ENG-111: a failing text check never fails the run
            self._warnings.append(
                f"[DoomLoop] text checkpoint failed; skipping for this response: {error}"
            )
            verdict = None
        if verdict is not None:
            self.actions.apply(verdict)  # ENG-112
        for item in output:
            kind = item.get("type")
            if not isinstance(kind, str) or kind in NOT_SERVER_ITEMS:
                continue
            identity = server_identity(item)
            if not identity:
                continue
            tool_name = f"server:{kind}"
            record = self._record(
                tool_name,
                identity,
                UNDEFINED,
                allow_block=False,
                detector="server-tool-fingerprint",
            )
            self._decide(tool_name, record, UNDEFINED)
