"""Shared pytest set-up: Hypothesis runs derandomized, with no example database,
so every run of the suite explores the same examples on every machine; the
runner's validation cache (doomloop_kit.vectorset.cache) is private to the run."""

from __future__ import annotations

import os
import tempfile

from hypothesis import settings

os.environ.setdefault("DOOMLOOP_KIT_CACHE", tempfile.mkdtemp(prefix="doomloop-test-cache-"))

settings.register_profile("kit", derandomize=True, database=None, deadline=None)
settings.load_profile("kit")
