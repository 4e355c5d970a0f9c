"""Shared pytest set-up: Hypothesis runs derandomized, with no example database,
so every run of the suite explores the same examples on every machine; the
runner's validation cache (doomloop_kit.vectorset.cache) is private to the run;
SIGINT is delivered to the commands the tests start, as from a terminal; the
longest test files are handed out first."""

from __future__ import annotations

import os
import signal
import tempfile

import pytest
from hypothesis import settings

os.environ.setdefault("DOOMLOOP_KIT_CACHE", tempfile.mkdtemp(prefix="doomloop-test-cache-"))

settings.register_profile("kit", derandomize=True, database=None, deadline=None)
settings.load_profile("kit")

# A suite started in the background by a shell without job control (`make test &`,
# nohup, some CI runners) inherits SIGINT ignored, and every command it starts would
# too: the tests that press Ctrl-C on a command need it delivered as a terminal does.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


LONGEST_FIRST = (
    "test_sdk_engine_corpus.py",
    "test_generator_regenerate.py",
    "test_release.py",
    "test_runner_mutants.py",
    "test_runner_reference.py",
    "test_docs_versions.py",
    "test_sdk_observations.py",
)
"""Files of a minute or more (``--durations``): pytest-xdist hands out whole files in
collection order (``--dist loadfile``), so one of these collected last kept one worker
busy for minutes after the other had finished."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: order kept
