"""Lanes: the loops that do a run's work. A run gets `max_concurrency` lanes, as threads of
the `judge` command (spread over a few processes) or as Celery tasks over any number of
workers; each lane holds one of the run's lane slots and makes one call at a time, so no
more requests are in flight than the config allows. Slots and leases: claims.py; the
lanes of one process: lane_pool.py.
"""

import threading

from django.db import connections

from judging.services.lane_pool import pool_run

__all__ = ["lane_run", "lanes_in_threads", "run_here"]

CHILD_GRACE_SECONDS = 8.0


def lane_run(*, run_id: int, max_seconds: float | None = None) -> str:
    """One lane (a Celery task's): "finished", "stopped", "timeout" or "surplus", as
    `pool_run` says."""
    return pool_run(run_id=run_id, lanes=1, max_seconds=max_seconds)


def run_here(
    *, run_id: int, lanes: int, processes: int = 1, stop: threading.Event | None = None
) -> None:
    """Do the whole run from this process with `lanes` lane threads: no worker needed.

    With `processes` > 1 the lanes are shared out over child processes and this one:
    a lane spends most of a call in Python (building the request, the SDK, the ORM), so
    one interpreter's lock caps a run well below what the endpoint could serve. The lane
    slots still bound the calls in flight, and this process's own lanes keep going until
    no task is open, so a child that dies only delays the tasks it held (their leases run
    out and a living lane takes them over).

    Setting `stop` interrupts the work (see `pool_run`); child processes notice that the
    run is no longer running within a second and stop as well."""
    processes = max(1, min(processes, lanes))
    shares = [lanes // processes + (1 if i < lanes % processes else 0) for i in range(processes)]
    children, joining = [], []
    if processes > 1:
        import multiprocessing

        from judging.lane_process import lanes_in_child

        # Spawned, not forked: a forked child would inherit (and, on exit, close) the
        # database connections of this process's other threads. A spawned child takes a
        # second or two to start, so this process works with every lane until it is ready.
        context = multiprocessing.get_context("spawn")
        database = connections["default"].settings_dict["NAME"]
        for share in shares[1:]:
            started = context.Event()
            child = context.Process(
                target=lanes_in_child, args=(run_id, share, str(database), started), daemon=True
            )
            child.start()
            children.append(child)
            joining.append((started, share))
    try:
        pool_run(run_id=run_id, lanes=lanes, joining=joining, stop=stop)
    finally:
        for child in children:
            child.join(timeout=CHILD_GRACE_SECONDS if stop is not None and stop.is_set() else None)
            if child.is_alive():
                child.terminate()  # its leases are given back by whoever interrupted the run


def lanes_in_threads(run_id: int, lanes: int, *, joining: bool = False) -> None:
    pool_run(run_id=run_id, lanes=lanes, wait_for_slots=joining)
