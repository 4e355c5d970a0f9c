"""Shared pytest set-up: Hypothesis runs derandomized, with no example database,
so every run of the suite explores the same examples on every machine."""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("kit", derandomize=True, database=None, deadline=None)
settings.load_profile("kit")
