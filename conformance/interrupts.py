"""How ``doomloop-kit`` stops when asked to, or when its stdout goes away.

:func:`install` (called by the command line before anything else) turns
SIGINT, SIGTERM and SIGHUP into :class:`Interrupted`, raised in the main
thread -- but only inside an :func:`interruptible` block, and only once per
command. Elsewhere a signal waits: inside :func:`held` (a runner writing its
reports, say) it is recorded and never raised, and a signal that arrives
just before an :func:`interruptible` block is raised when the block begins.
So a second Ctrl-C cannot cut short the cleanup the first one started, and
no signal lands between two statements that must both run.

A raise that some code swallows (an exception inside a garbage-collector
callback is only printed) is raised again a moment later, so a signal is
never lost.

A closed stdout (the reader of a pipe ended, ``| head``) is
:class:`StdoutClosed`, raised by whoever writes there first
(:class:`~.report.Console`); :func:`silence_stdout` then points the
descriptor at ``/dev/null`` so that nothing fails again at exit.

Each command ends with one line on stderr (:func:`say`) and a documented
exit status: 128 + the signal number when interrupted (130 SIGINT, 143
SIGTERM, 129 SIGHUP), :data:`STDOUT_CLOSED` (141, as a process killed by
SIGPIPE) when stdout was closed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Final

from .terminal import shown

SIGNALS: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STDOUT_CLOSED: Final = 128 + signal.SIGPIPE
"""The exit status of a command whose stdout was closed (141)."""


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP arrived; the exit status is ``128 + signum``.

    A :class:`KeyboardInterrupt`, so that libraries which stop cleanly on Ctrl-C
    (Hypothesis, in the middle of a draw) stop cleanly on any of the three."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


class StdoutClosed(Exception):
    """Writing to stdout failed: the reader went away (or the terminal hung up)."""


class _State:
    def __init__(self) -> None:
        self.modes: list[str] = []
        self.pending: int | None = None
        """The first signal received (None: none yet)."""
        self.in_flight = False
        """An :class:`Interrupted` was raised and has not yet left an interruptible block."""
        self.delivered = False
        """An :class:`Interrupted` left an interruptible block: the command is ending."""
        self.raised_at = 0.0


_state = _State()
_RAISE_AGAIN_AFTER: Final = 0.25
"""Seconds after which an :class:`Interrupted` that never left its block is raised again."""


def _handler(signum: int, frame: FrameType | None) -> None:
    state = _state
    if state.delivered:
        return  # the command is already ending: nothing may cut that short
    if state.pending is None:
        state.pending = signum
    if state.in_flight or not state.modes or state.modes[-1] != "interruptible":
        return  # waits: raised when an interruptible block begins, or never (held)
    _raise(state)


def _raise(state: _State) -> None:
    assert state.pending is not None
    state.in_flight, state.raised_at = True, time.monotonic()
    threading.Thread(target=_watch, args=(state,), daemon=True).start()
    raise Interrupted(state.pending)


def _watch(state: _State) -> None:
    """Raise again an :class:`Interrupted` some code swallowed (an exception inside a
    garbage-collector callback is only printed): it never left its block."""
    while not state.delivered and state is _state:
        time.sleep(_RAISE_AGAIN_AFTER / 2)
        late = time.monotonic() - state.raised_at > _RAISE_AGAIN_AFTER
        if state.in_flight and late and state.modes and state.modes[-1] == "interruptible":
            state.in_flight = False
            assert state.pending is not None
            os.kill(os.getpid(), state.pending)
            return


def _in_a_forked_child() -> None:
    """A worker process forked while the command runs (``replay --jobs N``) leaves the
    signals to the command: a Ctrl-C reaches the whole process group, and only the
    command may answer it (it stops its workers); a worker would print a traceback."""
    for signum in SIGNALS:
        if signal.getsignal(signum) is _handler:
            signal.signal(signum, signal.SIG_IGN)


_FORK_HOOK: list[bool] = []


def install() -> Callable[[], None]:
    """Route the signals through this module (main thread only); returns the undo.

    A signal the command was started with ignored (``nohup``, a background job
    of a script) stays ignored. Before this runs -- the first tenth of a second
    or so of the process -- a signal ends the command as it ends any program,
    before it has touched a file."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    if not _FORK_HOOK:  # once per process (a hook cannot be removed)
        os.register_at_fork(after_in_child=_in_a_forked_child)
        _FORK_HOOK.append(True)
    global _state
    saved_state = _state
    _state = _State()
    previous = {
        signum: signal.signal(signum, _handler)
        for signum in SIGNALS
        if signal.getsignal(signum) is not signal.SIG_IGN  # nohup, a background job: kept
    }
    previous_hook = sys.unraisablehook

    def unraisable(report: sys.UnraisableHookArgs) -> None:
        """An Interrupted swallowed where Python cannot raise (a garbage-collector
        callback) is not printed: _watch raises it again where it can be."""
        if not isinstance(report.exc_value, Interrupted):
            previous_hook(report)

    sys.unraisablehook = unraisable

    def restore() -> None:
        global _state
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        sys.unraisablehook = previous_hook
        _state = saved_state

    return restore


def ignore() -> None:
    """Ignore the signals from now on: the command has ended and the process exits
    (Python would restore their default action while it shuts down, and a late
    signal would then kill a process whose reports already say how it ended)."""
    if threading.current_thread() is threading.main_thread():
        for signum in SIGNALS:
            signal.signal(signum, signal.SIG_IGN)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """A signal raises :class:`Interrupted` here (one that waited raises on entry)."""
    state = _state
    state.modes.append("interruptible")
    try:
        if state.pending is not None and not state.in_flight and not state.delivered:
            _raise(state)
        yield
    except Interrupted:
        state.delivered, state.in_flight = True, False
        raise
    except BaseException as error:
        interrupt = _interrupt_behind(error)
        if interrupt is None:
            raise
        # a library failed while handling the interrupt (Hypothesis can assert in its
        # own KeyboardInterrupt path): the interrupt is what happened
        state.delivered, state.in_flight = True, False
        raise interrupt from None
    finally:
        state.modes.pop()


def _interrupt_behind(error: BaseException) -> Interrupted | None:
    """The :class:`Interrupted` an exception was raised while handling, if any."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, Interrupted):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


@contextlib.contextmanager
def held() -> Iterator[None]:
    """A signal waits here: recorded, never raised inside the block."""
    _state.modes.append("held")
    try:
        yield
    finally:
        _state.modes.pop()


def say(line: str) -> None:
    """One line on stderr, control characters escaped (:func:`~.terminal.shown`: it may
    carry a harness's words); nothing, rather than an error, when stderr is gone too."""
    with contextlib.suppress(OSError, ValueError):
        print(shown(line), file=sys.stderr, flush=True)


def silence_stdout() -> None:
    """Point a closed stdout at /dev/null: buffered text and later prints go nowhere."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        descriptor = sys.stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, descriptor)
        os.close(null)
