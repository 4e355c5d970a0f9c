"""Shared pytest set-up: Hypothesis runs derandomized, with no example database,
so every run of the suite explores the same examples on every machine; the
runner's validation cache (doomloop_kit.vectorset.cache) is private to the run;
SIGINT is delivered to the commands the tests start, as from a terminal."""

from __future__ import annotations

import os
import signal
import tempfile

from hypothesis import settings

os.environ.setdefault("DOOMLOOP_KIT_CACHE", tempfile.mkdtemp(prefix="doomloop-test-cache-"))

settings.register_profile("kit", derandomize=True, database=None, deadline=None)
settings.load_profile("kit")

# A suite started in the background by a shell without job control (`make test &`,
# nohup, some CI runners) inherits SIGINT ignored, and every command it starts would
# too: the tests that press Ctrl-C on a command need it delivered as a terminal does.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
