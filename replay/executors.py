"""Where a fleet's files are replayed: this process, local worker processes, or Dask.

Every executor maps :func:`~.fleet.replay_file` over the tasks and yields
the results *in task order*, so the report is the same whichever ran it. At
most a bounded window of tasks is in flight at once, so a corpus of any size
streams through in constant memory.

* ``--jobs 1``: in this process.
* ``--jobs N``: N local worker processes (:mod:`concurrent.futures`), never
  more than the cores this process may run on, nor than the files
  (:func:`usable_jobs`): ``--jobs 1000000000`` starts what the machine can use.
* ``--dask ADDRESS``: the workers of a Dask distributed scheduler at
  ``ADDRESS`` (``tcp://host:8786``), or ``--dask local`` for a
  ``LocalCluster`` of ``--jobs`` worker processes on this machine. Dask is
  an optional dependency (``pip install 'doomloop-kit[dask]'``); every
  worker must be able to read the files by the paths given.

Interrupts. A terminal's Ctrl-C reaches the whole process group, workers
included, and a worker that answered it would print a traceback of its own.
So every worker process (and every helper thread that may start one) is
started with SIGINT, SIGTERM and SIGHUP blocked (:func:`signals_blocked`):
it inherits that mask and never sees them; the command alone answers, and
stops its workers itself. That stop -- and the normal end -- runs when the
map ends in any way (the command closes it), held from further signals
(:func:`~doomloop_kit.conformance.interrupts.held`): local workers are
killed and joined, a local cluster is closed (its workers and its own log say nothing of
the tasks it cancels). A signal that arrives while a local cluster is
starting takes effect once it has started, so that every worker it started
is stopped.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Final, TypeVar

from doomloop_kit.conformance import interrupts

from .options import OptionError

T = TypeVar("T")
R = TypeVar("R")

IN_FLIGHT_PER_WORKER: Final = 4
QUIET_WORKERS: Final = {"DASK_LOGGING__DISTRIBUTED": "critical"}
"""A local cluster's workers log nothing: a worker stopped mid-task would log the task's
cancellation and its lost heartbeat, though the command says what happened (a failed
task's error reaches the command with its result)."""


@contextlib.contextmanager
def _environment(variables: Mapping[str, str]) -> Iterator[None]:
    """Environment variables set for the block (the processes started in it keep them)."""
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


@contextlib.contextmanager
def _quiet(logger: logging.Logger) -> Iterator[None]:
    """The logger says nothing in the block (a cluster closed after an interrupt)."""
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


@contextlib.contextmanager
def signals_blocked(spawning: bool = False) -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP blocked in this thread for the block: processes and
    threads started in it inherit the mask. One that arrives meanwhile is delivered when
    the block ends (to the command's own handler).

    ``spawning``: processes will be spawned, not forked, so multiprocessing's resource
    tracker is started first: the thread that starts it gets SIGINT and SIGTERM
    unblocked (it blocks them around the start, then unblocks them rather than
    restoring the mask); started before the block, it leaves the block alone."""
    if spawning:
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, interrupts.SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def starting_workers(spawning: bool = False) -> Iterator[None]:
    """A block that may start worker processes or threads: they start with the signals
    blocked (:func:`signals_blocked`), and a signal that arrives meanwhile -- even one
    another thread took -- waits (:func:`raise_waiting` raises it), so it never lands
    half-way through starting a process, which would then belong to no one."""
    with interrupts.held(), signals_blocked(spawning):
        yield


def raise_waiting() -> None:
    """Raise the signal that waited during :func:`starting_workers`, if one did."""
    with interrupts.interruptible():
        pass


def usable_jobs(jobs: int, tasks: int) -> int:
    """The workers worth starting for ``--jobs`` over ``tasks`` files: at most one per
    core this process may run on, and per file; at least one."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(jobs, cores, tasks))


def _windowed(submit: Callable[[T], Any], items: Iterable[T], window: int) -> Iterator[Any]:
    """Submit ahead by at most ``window`` and yield the futures in order."""
    pending: deque[Any] = deque()
    for item in items:
        pending.append(submit(item))
        if len(pending) >= window:
            yield pending.popleft()
    yield from pending


def local_map(
    function: Callable[[T], R], items: Iterable[T], jobs: int
) -> Generator[R, None, None]:
    """This process (``jobs`` 1) or ``jobs`` worker processes; results in order."""
    if jobs <= 1:
        yield from map(function, items)
        return
    pool = ProcessPoolExecutor(max_workers=jobs)
    spawning = multiprocessing.get_start_method() != "fork"
    finished = False

    def submit(item: T) -> Future[R]:
        with starting_workers(spawning):  # a submit may start workers (and the pool's thread)
            future = pool.submit(function, item)
        raise_waiting()
        return future

    try:
        for future in _windowed(submit, items, jobs * IN_FLIGHT_PER_WORKER):
            yield future.result()
        finished = True
    finally:
        with interrupts.held():
            if not finished:  # an interrupt or a failure: never wait on a worker's task
                workers = multiprocessing.active_children()
                for worker in workers:
                    worker.kill()
                for worker in workers:
                    worker.join()
            # one call that waits: a first call without waiting would forget the pool's
            # thread, which Python's exit would then race with (an EBADF traceback)
            pool.shutdown(wait=True, cancel_futures=True)


def dask_map(
    function: Callable[[T], R], items: Iterable[T], address: str, jobs: int
) -> Generator[R, None, None]:
    """The workers of a Dask scheduler (or a local cluster of ``jobs`` processes)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise OptionError(
            "--dask needs Dask distributed: pip install 'doomloop-kit[dask]'"
        ) from None
    cluster = None
    with starting_workers(spawning=True):  # the cluster's thread and workers inherit the mask
        if address == "local":
            with _environment(QUIET_WORKERS):
                cluster = LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=max(jobs, 1),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                )
        try:
            client = Client(cluster if cluster is not None else address)  # type: ignore[no-untyped-call]
        except BaseException:
            with interrupts.held():
                if cluster is not None:
                    cluster.close()
            raise
    try:
        raise_waiting()
        workers = max(len(client.scheduler_info().get("workers", {})), 1)
        futures = _windowed(
            lambda item: client.submit(function, item, pure=False),
            items,
            workers * IN_FLIGHT_PER_WORKER,
        )
        for future in futures:
            yield future.result()
            future.release()
    finally:
        with interrupts.held(), _quiet(logging.getLogger("distributed")):
            client.close()  # type: ignore[no-untyped-call]
            if cluster is not None:
                cluster.close()
