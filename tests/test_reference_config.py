"""Option resolution and the ladder (CFG-*, LAD-*); expectations from brief sections 1 and 5."""

from __future__ import annotations

import math

import pytest
from doomloop_kit.jsvalue.values import UNDEFINED, JsTypeError
from doomloop_kit.reference import Ladder, resolve_doom_loop_option, resolve_ladder_action
from doomloop_kit.reference.config import TextOptions


def resolve(option: object) -> dict[str, object]:
    config = resolve_doom_loop_option(option).config
    assert config is not None
    return config.to_json()


def codes(option: object) -> list[tuple[object, object, object]]:
    """(code, rung, shadowedBy) of each warning, as derived from its message (CFG-34)."""
    return [
        (data["code"], data.get("rung"), data.get("shadowedBy"))
        for data in (w.to_json() for w in resolve_doom_loop_option(option).warnings)
    ]


DEFAULT_LADDER = {"observe": 2, "steer": False, "escalate": False, "block": 3, "stop": 6}
DEFAULT_TEXT = {
    "enabled": True,
    "maxPeriodTokens": 16,
    "minRepeats": 4,
    "minCoveredTokens": 12,
    "maxWindowTokens": 400,
}


def test_off() -> None:
    assert resolve_doom_loop_option(False).config is None
    assert resolve_doom_loop_option().config is None


@pytest.mark.parametrize(
    ("option", "reading"),
    [(None, "ladder"), ({"text": None}, "enabled"), ({"escalation": None}, "model")],
)
def test_null_option_text_escalation_throw(option: object, reading: str) -> None:
    """Brief §10.2: the SDK reads a member of null and throws a TypeError (CFG-41..CFG-43)."""
    with pytest.raises(JsTypeError, match=f"reading '{reading}'"):
        resolve_doom_loop_option(option)


@pytest.mark.parametrize("option", [True, {}, {"ladder": None}, {"ladder": [1, 2]}, 5])
def test_defaults(option: object) -> None:
    assert resolve(option) == {"ladder": DEFAULT_LADDER, "text": DEFAULT_TEXT, "escalation": None}
    assert codes(option) == []


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (False, False),
        (1, 1),
        (2.9, 2),
        (1e300, math.floor(1e300)),
        (0, "default"),
        (0.5, "default"),
        (-3, "default"),
        (math.nan, "default"),
        (math.inf, "default"),
        ("4", "default"),
        (None, "default"),
        (True, "default"),
    ],
)
def test_threshold_sanitising(given: object, expected: object) -> None:
    ladder = resolve({"ladder": {"steer": given}})["ladder"]
    assert isinstance(ladder, dict)
    assert ladder["steer"] == (False if expected == "default" else expected)


def test_block_without_stop_and_dead_rungs() -> None:
    assert codes({"ladder": {"stop": False}}) == [("block-without-stop", None, None)]
    # observe 3 is shadowed by block 3 (>=); steer 7 by block 3, the first stronger
    # enabled rung at or below it (escalate is disabled); steer 5 with block off by stop
    assert codes({"ladder": {"observe": 3, "steer": 7}}) == [
        ("dead-rung", "observe", "block"),
        ("dead-rung", "steer", "block"),
    ]
    assert codes({"ladder": {"steer": 7, "block": False}}) == [("dead-rung", "steer", "stop")]
    assert codes({"ladder": {"block": 6}}) == [("dead-rung", "block", "stop")]


def test_escalation() -> None:
    assert resolve({"escalation": {"model": "m"}})["escalation"] == {
        "model": "m",
        "maxEscalations": 2,
    }
    assert codes({"escalation": {"model": "m"}}) == [("escalation-unused", None, None)]
    both = {
        "ladder": {"escalate": 2, "observe": False},
        "escalation": {"advisor": True, "maxEscalations": 3.7},
    }
    assert resolve(both)["escalation"] == {"advisor": True, "maxEscalations": 3}
    assert codes(both) == []
    for cap in (0, -1, "5", math.inf):
        assert resolve({"escalation": {"model": "m", "maxEscalations": cap}})["escalation"] == {
            "model": "m",
            "maxEscalations": 2,
        }
    for no_mechanism in ({"advisor": False}, {}, {"model": UNDEFINED}, True):
        option = {"ladder": {"escalate": 2, "observe": False}, "escalation": no_mechanism}
        assert resolve(option)["escalation"] is None
        assert codes(option) == [("escalation-rung-unconfigured", None, None)]


def test_null_escalation_members_are_present() -> None:
    """Brief §10.1 and observations C1: ``!== undefined`` (CFG-44)."""
    assert resolve({"escalation": {"model": None}})["escalation"] == {
        "model": None,
        "maxEscalations": 2,
    }
    option = {"escalation": {"model": "m", "advisor": None}}
    assert resolve(option)["escalation"] == {"model": "m", "advisor": None, "maxEscalations": 2}


def test_warning_texts_are_the_sdks() -> None:
    """Brief §9.1, byte for byte (CFG-35, CFG-36)."""
    (block,) = resolve_doom_loop_option({"ladder": {"stop": False}}).warnings
    assert block.message.startswith("[DoomLoop] ladder has block enabled with stop disabled: ")
    assert block.message.endswith("Bound the run with stopWhen, or enable the stop rung.")
    (dead,) = resolve_doom_loop_option({"ladder": {"observe": 3}}).warnings
    assert dead.message == (
        '[DoomLoop] ladder rung "observe" (3) can never fire: stronger rung "block" (3) '
        "already wins at that streak (strongest crossed rung is applied)."
    )


def test_text_options() -> None:
    assert resolve({"text": False})["text"] == {**DEFAULT_TEXT, "enabled": False}
    assert resolve({"text": True})["text"] == DEFAULT_TEXT
    assert resolve({"text": {"minRepeats": 2, "maxWindowTokens": None, "enabled": False}})[
        "text"
    ] == {**DEFAULT_TEXT, "minRepeats": 2, "enabled": False}
    # no range sanitising: taken as given
    assert TextOptions.from_json({"minRepeats": -7}).min_repeats == -7


def test_warning_json_shape() -> None:
    warnings = resolve_doom_loop_option({"ladder": {"observe": 9}}).warnings
    assert [w.to_json()["rung"] for w in warnings] == ["observe"]
    assert warnings[0].to_json()["shadowedBy"] == "block"
    assert isinstance(warnings[0].to_json()["message"], str)


LADDER = Ladder(observe=2, steer=3, escalate=4, block=5, stop=6)


@pytest.mark.parametrize(
    ("streak", "allow_block", "allow_escalate", "action"),
    [
        (1, True, True, None),
        (2, True, True, "observe"),
        (3, True, True, "steer"),
        (4, True, True, "escalate"),
        (4, True, False, "steer"),
        (5, True, True, "block"),
        (5, False, True, "escalate"),
        (5, False, False, "steer"),
        (6, False, False, "stop"),
        (600, True, True, "stop"),
    ],
)
def test_ladder_order(
    streak: int, allow_block: bool, allow_escalate: bool, action: str | None
) -> None:
    assert (
        resolve_ladder_action(
            LADDER, streak, allow_block=allow_block, allow_escalate=allow_escalate
        )
        == action
    )


def test_disabled_rungs_never_meet() -> None:
    ladder = Ladder(observe=False, steer=False, escalate=False, block=False, stop=False)
    assert resolve_ladder_action(ladder, 10**6, allow_block=True) is None
