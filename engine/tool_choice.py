"""The caller's tool choice and the forced-choice bookkeeping (ENG-133, EOQ-07)."""

from __future__ import annotations

from collections.abc import Mapping

from doomloop_kit.reference import UNDEFINED


def forced_key(choice: object) -> str | None:
    """``required`` or ``function:<name>`` for a forced choice; None otherwise."""
    if choice == "required":
        return "required"
    if isinstance(choice, Mapping) and choice.get("type") == "function":
        return f"function:{choice.get('name')}"
    return None


class ToolChoicePolicy:
    """Offers the caller's choice per dispatch; a forced choice is spent once sent."""

    def __init__(self, choice: object, start: int, consumed_key: str | None) -> None:
        self.choice = choice
        self.start = start
        self.key = forced_key(choice)
        self.consumed_key = consumed_key

    def offer(self, dispatch: int) -> object:
        """The choice for this dispatch, or UNDEFINED (ENG-133)."""
        if self.key is None:
            return self.choice
        if self.consumed_key == self.key or dispatch < self.start:
            return UNDEFINED
        return self.choice

    def sent(self, choice: object) -> None:
        """The offered forced choice reached the wire: it is consumed (ENG-133)."""
        if self.key is not None and choice is not UNDEFINED:
            self.consumed_key = self.key

    def reset(self) -> None:
        """Forget the consumption (ENG-127 step 5, a fresh turn: EOQ-07)."""
        self.consumed_key = None
