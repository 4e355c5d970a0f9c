"""Resolution of the ``doomLoop`` option into the monitor's configuration.

Spec section 3. Warnings are returned as data: a list of
:class:`ConfigWarning` whose ``message`` is the SDK's exact text (CFG-35..CFG-38)
and whose ``code`` is derived from that message (CFG-34).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from doomloop_kit.jsvalue.values import UNDEFINED, JsTypeError, finite_number, js_floor

from . import messages

Rung = Literal["observe", "steer", "escalate", "block", "stop"]
RUNGS: Final[tuple[Rung, ...]] = ("observe", "steer", "escalate", "block", "stop")
"""The rungs, weakest to strongest (LAD-01)."""

Threshold = int | Literal[False]

DEFAULT_DOOM_LOOP_LADDER: Final[Mapping[Rung, Threshold]] = {
    "observe": 2,
    "steer": False,
    "escalate": False,
    "block": 3,
    "stop": 6,
}
DEFAULT_MAX_ESCALATIONS: Final = 2
DEFAULT_TEXT_OPTIONS: Final[Mapping[str, object]] = {
    "enabled": True,
    "maxPeriodTokens": 16,
    "minRepeats": 4,
    "minCoveredTokens": 12,
    "maxWindowTokens": 400,
}


@dataclass(frozen=True)
class Ladder:
    """Resolved thresholds; ``False`` disables a rung (CFG-09, CFG-13)."""

    observe: Threshold = 2
    steer: Threshold = False
    escalate: Threshold = False
    block: Threshold = 3
    stop: Threshold = 6

    def threshold(self, rung: Rung) -> Threshold:
        value: Threshold = getattr(self, rung)
        return value

    def to_json(self) -> dict[str, object]:
        return {rung: self.threshold(rung) for rung in RUNGS}


@dataclass(frozen=True)
class TextOptions:
    """Text-detection options, taken as given with no range sanitising (CFG-16).

    Numbers are used as JS numbers (TXT-17); other values follow JS coercion
    (CFG-45, TXT-22) and ``enabled`` JS truthiness (MON-59).
    """

    enabled: object = True
    max_period_tokens: object = 16
    min_repeats: object = 4
    min_covered_tokens: object = 12
    max_window_tokens: object = 400

    def to_json(self) -> dict[str, object]:
        return {
            "enabled": self.enabled,
            "maxPeriodTokens": self.max_period_tokens,
            "minRepeats": self.min_repeats,
            "minCoveredTokens": self.min_covered_tokens,
            "maxWindowTokens": self.max_window_tokens,
        }

    @classmethod
    def from_json(cls, given: Mapping[str, object]) -> TextOptions:
        """Each field as given unless absent, undefined or null (``??``, CFG-16, CFG-46)."""
        values = {
            name: given[name] if _present(given.get(name, UNDEFINED)) else default
            for name, default in DEFAULT_TEXT_OPTIONS.items()
        }
        return cls(
            enabled=values["enabled"],
            max_period_tokens=values["maxPeriodTokens"],
            min_repeats=values["minRepeats"],
            min_covered_tokens=values["minCoveredTokens"],
            max_window_tokens=values["maxWindowTokens"],
        )


@dataclass(frozen=True)
class EscalationConfig:
    """The escalation mechanism with its budget resolved (CFG-23); a ``null``
    model or advisor is present and kept (CFG-44)."""

    max_escalations: int
    model: object = UNDEFINED
    advisor: object = UNDEFINED

    def to_json(self) -> dict[str, object]:
        result: dict[str, object] = {}
        if self.model is not UNDEFINED:
            result["model"] = self.model
        if self.advisor is not UNDEFINED:
            result["advisor"] = self.advisor
        result["maxEscalations"] = self.max_escalations
        return result


@dataclass(frozen=True)
class ResolvedConfig:
    """The fully resolved configuration the monitor runs on (CFG-06)."""

    ladder: Ladder = field(default_factory=Ladder)
    text: TextOptions = field(default_factory=TextOptions)
    escalation: EscalationConfig | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "ladder": self.ladder.to_json(),
            "text": self.text.to_json(),
            "escalation": None if self.escalation is None else self.escalation.to_json(),
        }


@dataclass(frozen=True)
class ConfigWarning:
    """A resolution-time warning: the SDK's exact ``message`` (CFG-35..CFG-38).

    The wire form adds the ``code`` (and for a dead rung ``rung`` and
    ``shadowedBy``) derived from the message alone (CFG-34).
    """

    message: str

    def to_json(self) -> dict[str, object]:
        return dict(messages.warning_data(self.message))


@dataclass(frozen=True)
class OptionResolution:
    """The result of :func:`resolve_doom_loop_option`: the config (None = off) and warnings."""

    config: ResolvedConfig | None
    warnings: tuple[ConfigWarning, ...] = ()


class OptionError(JsTypeError):
    """The option's resolution threw (CFG-02, CFG-42, CFG-43); ``warnings`` are those the
    resolver printed before it threw (CFG-47)."""

    def __init__(self, message: str, warnings: tuple[ConfigWarning, ...] = ()) -> None:
        super().__init__(message)
        self.warnings = warnings


def _object(value: object) -> Mapping[str, object] | None:
    """A JSON object (not an array), or None."""
    return value if isinstance(value, Mapping) else None


def _present(value: object) -> bool:
    """A text option is given when it is neither absent, undefined nor null (CFG-16)."""
    return value is not UNDEFINED and value is not None


def _member(value: object, name: str) -> object:
    """``value.name`` as JS reads it: undefined for a missing member or a
    non-object; a JS TypeError for ``null`` (CFG-41, CFG-42, CFG-43)."""
    if value is None:
        raise JsTypeError(f"Cannot read properties of null (reading '{name}')")
    members = _object(value)
    return UNDEFINED if members is None else members.get(name, UNDEFINED)


def _threshold(given: object, default: Threshold) -> Threshold:
    """Sanitise one rung's threshold (CFG-09, CFG-10, CFG-11)."""
    if given is False:
        return False
    number = finite_number(given)
    return js_floor(number) if number is not None and number >= 1 else default


def resolve_ladder(given: object) -> Ladder:
    """Sanitise every rung of a ``ladder`` value, defaulting what is missing (CFG-07, CFG-08)."""
    members = _object(given) or {}
    return Ladder(
        **{
            rung: _threshold(members.get(rung, UNDEFINED), DEFAULT_DOOM_LOOP_LADDER[rung])
            for rung in RUNGS
        }
    )


def ladder_warnings(ladder: Ladder) -> list[ConfigWarning]:
    """The block/stop warning, then one dead-rung warning per shadowed rung (CFG-28)."""
    warnings: list[ConfigWarning] = []
    if ladder.block is not False and ladder.stop is False:
        warnings.append(ConfigWarning(messages.BLOCK_WITHOUT_STOP))
    for index, rung in enumerate(RUNGS):
        own = ladder.threshold(rung)
        if own is False:
            continue
        for stronger in RUNGS[index + 1 :]:
            theirs = ladder.threshold(stronger)
            if theirs is not False and own >= theirs:
                warnings.append(ConfigWarning(messages.dead_rung(rung, own, stronger, theirs)))
                break
    return warnings


def resolve_text_options(given: object) -> TextOptions:
    """``false`` disables; ``null`` throws; an object tunes; anything else means
    defaults (CFG-14, CFG-42)."""
    if given is False:
        return TextOptions(enabled=False)
    if given is UNDEFINED or given is True:
        return TextOptions()
    _member(given, "enabled")  # null throws here, as JS reads text.enabled first
    members = _object(given)
    return TextOptions() if members is None else TextOptions.from_json(members)


def resolve_escalation(
    given: object, ladder: Ladder
) -> tuple[EscalationConfig | None, list[ConfigWarning]]:
    """The escalation mechanism and budget, with their warning (CFG-21..CFG-25, CFG-43, CFG-44).

    A member is present when it is not undefined: ``{model: null}`` is a
    mechanism (CFG-44); an ``escalation`` of ``null`` throws (CFG-43).
    """
    model = UNDEFINED if given is UNDEFINED else _member(given, "model")
    members = _object(given)
    advisor = members.get("advisor", UNDEFINED) if members is not None else UNDEFINED
    has_advisor = advisor is not UNDEFINED and advisor is not False
    rung_enabled = ladder.escalate is not False
    if members is None or not (model is not UNDEFINED or has_advisor):
        if rung_enabled:
            return None, [ConfigWarning(messages.ESCALATION_RUNG_UNCONFIGURED)]
        return None, []
    cap = finite_number(members.get("maxEscalations", UNDEFINED))
    resolved = EscalationConfig(
        max_escalations=js_floor(cap) if cap is not None and cap >= 1 else DEFAULT_MAX_ESCALATIONS,
        model=model,
        advisor=advisor if has_advisor else UNDEFINED,
    )
    warnings = []
    if not rung_enabled:
        warnings.append(ConfigWarning(messages.ESCALATION_UNUSED))
    return resolved, warnings


def resolve_doom_loop_option(option: object = UNDEFINED) -> OptionResolution:
    """Resolve the ``doomLoop`` option (CFG-03..CFG-05, CFG-40, CFG-41, CFG-47).

    Absent (undefined) or ``False`` turn detection off (config None); ``None``
    (JS null) throws :class:`OptionError`; ``True`` means all defaults; an object is
    read member by member; any other value is read as an empty object. The ladder
    is read first, then ``escalation``, then ``text``; a ``null`` escalation or text
    throws :class:`OptionError` carrying the warnings of what was read before it
    (CFG-47).
    """
    if option is UNDEFINED or option is False:
        return OptionResolution(None)
    try:
        ladder = resolve_ladder(_member(option, "ladder"))
    except JsTypeError as error:
        raise OptionError(str(error)) from None
    members = _object(option) or {}
    printed = ladder_warnings(ladder)
    try:
        escalation, escalation_warnings = resolve_escalation(
            members.get("escalation", UNDEFINED), ladder
        )
        printed += escalation_warnings
        text = resolve_text_options(members.get("text", UNDEFINED))
    except JsTypeError as error:
        raise OptionError(str(error), tuple(printed)) from None
    config = ResolvedConfig(ladder=ladder, text=text, escalation=escalation)
    return OptionResolution(config, tuple(printed))
