"""The caller's tool choice, forced choices and their consumption (ENG-145).

A *forced* choice is ``"required"`` or any object except an ``allowed_tools``
whose ``mode`` is not ``"required"`` (JS ``typeof choice === 'object'``, so an
array is an object too). It is *consumed* when it reached the wire unchanged
and the response to that dispatch holds a function call; from then on the
*relaxed* choice is sent. The state keeps the consumption as
``consumedForcedToolChoiceKey``: the RFC 8785 canonical JSON of the choice.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from doomloop_kit.reference import UNDEFINED, canonicalize


def is_forced(choice: object) -> bool:
    """``required``, or an object other than a non-required ``allowed_tools`` (ENG-145)."""
    if choice == "required":
        return True
    if isinstance(choice, Mapping):
        return choice.get("type") != "allowed_tools" or choice.get("mode") == "required"
    return isinstance(choice, list)


def relaxed(choice: object) -> object:
    """A consumed forced choice: ``auto``, or the ``allowed_tools`` in mode ``auto``."""
    if isinstance(choice, Mapping) and choice.get("type") == "allowed_tools":
        return {**copy.deepcopy(dict(choice)), "mode": "auto"}
    return "auto"


class ToolChoicePolicy:
    """Offers the caller's choice per dispatch and keeps the consumption key."""

    def __init__(self, choice: object, start: int, stored_key: str | None) -> None:
        self.choice = choice
        self.start = start
        self.forced = is_forced(choice)
        self.key = canonicalize(choice) if self.forced else None
        """The canonical JSON the consumption is recorded under (ENG-145); a well-formed
        scenario's choice always has one (ENG-173)."""
        self.stored_key = stored_key
        """The ``consumedForcedToolChoiceKey`` the state holds, as loaded or last set."""

    @property
    def forced_later(self) -> bool:
        """A forced choice that waits for a later dispatch: on a resume dispatch the SDK
        counts its turns otherwise, so such a run is outside the domain (ENG-151 (d))."""
        return self.forced and self.start > 0

    @property
    def consumed(self) -> bool:
        """A stored key matches only when spelled exactly as this choice's key (ENG-145)."""
        return self.key is not None and self.stored_key == self.key

    def offer(self, dispatch: int) -> object:
        """The caller's choice for this dispatch, or UNDEFINED (ENG-145)."""
        if not self.forced:
            return self.choice
        if dispatch < self.start:
            return UNDEFINED
        return relaxed(self.choice) if self.consumed else self.choice

    def carries_forced(self, offered: object) -> bool:
        """Whether an offer is the forced choice itself (not relaxed, not withheld)."""
        return self.forced and offered is not UNDEFINED and not self.consumed

    def answered(self, dispatch: int, carried_forced: bool, has_call: bool) -> None:
        """Bookkeeping when the response to a dispatch arrives (ENG-145).

        ``carried_forced``: the dispatch carried the forced choice unchanged
        (no override replaced it). When the caller's choice for this dispatch
        is not forced (none forced, or not yet applying) a stored key is
        cleared; a forced choice is consumed when it was carried and the
        response holds a function call.
        """
        if not self.forced or dispatch < self.start:
            self.stored_key = None
        elif carried_forced and has_call:
            self.stored_key = self.key

    def forget(self) -> None:
        """The run completed, or a condemned decision resume halted (ENG-145)."""
        self.stored_key = None
