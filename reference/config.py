"""Resolution of the ``doomLoop`` option into the monitor's configuration.

Spec section 3 (CFG-01, CFG-26). Warnings are returned as data: a list of
:class:`ConfigWarning` whose ``code`` is normative and whose ``message`` is
for humans.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from .jsvalues import UNDEFINED, finite_number, js_floor

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
    """Resolved thresholds; ``False`` disables a rung (CFG-06, CFG-13)."""

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
    """Text-detection options, taken as given with no range sanitising (CFG-16, CFG-17).

    The monitor's behaviour is specified only for a boolean ``enabled`` and
    positive integer numeric options; other values are kept as given.
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
        """Each field as given when present and not null, else its default."""
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
    """The escalation mechanism with its budget resolved (CFG-23, CFG-24)."""

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


WarningCode = Literal[
    "block-without-stop", "dead-rung", "escalation-rung-unconfigured", "escalation-unused"
]


@dataclass(frozen=True)
class ConfigWarning:
    """A resolution-time warning; ``code`` (and rung fields) are normative (CFG-26)."""

    code: WarningCode
    message: str
    rung: Rung | None = None
    shadowed_by: Rung | None = None

    def to_json(self) -> dict[str, object]:
        result: dict[str, object] = {"code": self.code}
        if self.rung is not None:
            result["rung"] = self.rung
            result["shadowedBy"] = self.shadowed_by
        result["message"] = self.message
        return result


@dataclass(frozen=True)
class OptionResolution:
    """The result of :func:`resolve_doom_loop_option`: the config (None = off) and warnings."""

    config: ResolvedConfig | None
    warnings: tuple[ConfigWarning, ...] = ()


def _object(value: object) -> Mapping[str, object] | None:
    """A JSON object (not an array), or None."""
    return value if isinstance(value, Mapping) else None


def _present(value: object) -> bool:
    """A member is present when it exists and is not null (CFG-16, CFG-20)."""
    return value is not UNDEFINED and value is not None


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
    """``block-without-stop``, then one ``dead-rung`` per shadowed rung (CFG-28, CFG-29, CFG-30)."""
    warnings: list[ConfigWarning] = []
    if ladder.block is not False and ladder.stop is False:
        warnings.append(
            ConfigWarning(
                "block-without-stop",
                "block is enabled while stop is disabled: a blocked call can be re-issued forever",
            )
        )
    for index, rung in enumerate(RUNGS):
        own = ladder.threshold(rung)
        if own is False:
            continue
        for stronger in RUNGS[index + 1 :]:
            theirs = ladder.threshold(stronger)
            if theirs is not False and own >= theirs:
                warnings.append(
                    ConfigWarning(
                        "dead-rung",
                        f"rung {rung!r} (at {own}) can never fire: {stronger!r} fires at {theirs}",
                        rung=rung,
                        shadowed_by=stronger,
                    )
                )
                break
    return warnings


def resolve_text_options(given: object) -> TextOptions:
    """``false`` disables; an object tunes; else defaults (CFG-14, CFG-15, CFG-16)."""
    if given is False:
        return TextOptions(enabled=False)
    members = _object(given)
    return TextOptions() if members is None else TextOptions.from_json(members)


def resolve_escalation(
    given: object, ladder: Ladder
) -> tuple[EscalationConfig | None, list[ConfigWarning]]:
    """The escalation mechanism and budget, with their warning (CFG-22, CFG-24, CFG-31, CFG-32)."""
    members = _object(given)
    model = members.get("model", UNDEFINED) if members is not None else UNDEFINED
    advisor = members.get("advisor", UNDEFINED) if members is not None else UNDEFINED
    has_advisor = _present(advisor) and advisor is not False
    rung_enabled = ladder.escalate is not False
    if members is None or not (_present(model) or has_advisor):
        if rung_enabled:
            return None, [
                ConfigWarning(
                    "escalation-rung-unconfigured",
                    "the escalate rung is enabled but no escalation model or advisor is configured",
                )
            ]
        return None, []
    cap = finite_number(members.get("maxEscalations", UNDEFINED))
    resolved = EscalationConfig(
        max_escalations=js_floor(cap) if cap is not None and cap >= 1 else DEFAULT_MAX_ESCALATIONS,
        model=model if _present(model) else UNDEFINED,
        advisor=advisor if has_advisor else UNDEFINED,
    )
    warnings = []
    if not rung_enabled:
        warnings.append(
            ConfigWarning(
                "escalation-unused",
                "escalation is configured but the escalate rung is disabled",
            )
        )
    return resolved, warnings


def resolve_doom_loop_option(option: object = UNDEFINED) -> OptionResolution:
    """Resolve the ``doomLoop`` option (CFG-02, CFG-03, CFG-04, CFG-05).

    Absent, ``None`` or ``False`` turn detection off (config None); ``True``
    means all defaults; an object is read member by member; any other value
    is read as an empty object.
    """
    if option is UNDEFINED or option is None or option is False:
        return OptionResolution(None)
    members = _object(option) or {}
    ladder = resolve_ladder(members.get("ladder", UNDEFINED))
    escalation, escalation_warnings = resolve_escalation(
        members.get("escalation", UNDEFINED), ladder
    )
    config = ResolvedConfig(
        ladder=ladder,
        text=resolve_text_options(members.get("text", UNDEFINED)),
        escalation=escalation,
    )
    return OptionResolution(config, tuple(ladder_warnings(ladder) + escalation_warnings))
