"""The error a malformed scenario raises (ENG-23)."""

from __future__ import annotations


class ScenarioError(ValueError):
    """A scenario that is not well formed; the message names the offending part (ENG-23)."""
