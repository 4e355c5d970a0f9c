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
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Final, TypeVar

from .options import OptionError

T = TypeVar("T")
R = TypeVar("R")

IN_FLIGHT_PER_WORKER: Final = 4


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


def local_map(function: Callable[[T], R], items: Iterable[T], jobs: int) -> Iterator[R]:
    """This process (``jobs`` 1) or ``jobs`` worker processes; results in order."""
    if jobs <= 1:
        yield from map(function, items)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures: Iterator[Future[R]] = _windowed(
            lambda item: pool.submit(function, item), items, jobs * IN_FLIGHT_PER_WORKER
        )
        try:
            for future in futures:
                yield future.result()
        except BaseException:  # an interrupt or a failure: never wait on a stuck worker
            pool.shutdown(wait=False, cancel_futures=True)
            for worker in multiprocessing.active_children():
                worker.terminate()
            raise


def dask_map(
    function: Callable[[T], R], items: Iterable[T], address: str, jobs: int
) -> Iterator[R]:
    """The workers of a Dask scheduler (or a local cluster of ``jobs`` processes)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise OptionError(
            "--dask needs Dask distributed: pip install 'doomloop-kit[dask]'"
        ) from None
    cluster = None
    if address == "local":
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=max(jobs, 1),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
    try:
        target = cluster if cluster is not None else address
        with Client(target) as client:  # type: ignore[no-untyped-call]
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
        if cluster is not None:
            cluster.close()
