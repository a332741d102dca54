"""Lanes: the loops that do a run's work. A run gets `max_concurrency` lanes, in threads of
the `judge` command (spread over a few processes) or as Celery tasks over any number of workers;
each lane holds one of the run's lane slots and claims one task at a time, so no more
requests are in flight than the config allows.

A claimed task carries a lease. If its lane dies (a killed worker), the lease runs out and
another lane claims the task again; the conditional writes in execution.py make sure a
task's result is written once, by the lane that holds the lease.
"""

import time
from datetime import timedelta

from django.db import connection, connections, transaction
from django.db.models import F, Min, Q
from django.utils import timezone

from judging.models import JudgeLane, JudgeRun, JudgeTask
from judging.services.execution import lane_for, task_execute

LEASE_MARGIN_SECONDS = 10
IDLE_POLL_SECONDS = 0.2
STATUS_CHECK_SECONDS = 1.0  # how soon a lane notices a pause or a cancel


def lease_seconds(run: JudgeRun) -> float:
    return float(run.settings_snapshot.get("timeout_seconds", 120)) + LEASE_MARGIN_SECONDS


def lane_slot_take(*, run: JudgeRun, token: str) -> bool:
    """Hold one of the run's lane slots (a free one, or one whose holder stopped renewing)."""
    now = timezone.now()
    free = JudgeLane.objects.filter(run=run).filter(
        Q(token="") | Q(expires__isnull=True) | Q(expires__lt=now)
    )
    for slot in free.order_by("number"):
        taken = JudgeLane.objects.filter(pk=slot.pk, token=slot.token, expires=slot.expires).update(
            token=token, expires=now + timedelta(seconds=lease_seconds(run))
        )
        if taken:
            return True
    return False


def _lane_slot_renew(*, run: JudgeRun, token: str) -> None:
    JudgeLane.objects.filter(run=run, token=token).update(
        expires=timezone.now() + timedelta(seconds=lease_seconds(run))
    )


def _lane_slot_release(*, run_id: int, token: str) -> None:
    JudgeLane.objects.filter(run_id=run_id, token=token).update(token="", expires=None)


def lane_run(*, run_id: int, max_seconds: float | None = None) -> str:
    """Work on the run until nothing is left ("finished"), the run is paused or cancelled
    ("stopped"), `max_seconds` pass ("timeout": the caller starts the lane again), or all
    lane slots are taken ("surplus": enough lanes are working already)."""
    run = JudgeRun.objects.select_related("prompt").get(pk=run_id)
    lane = lane_for(run)
    started = time.monotonic()
    if not lane_slot_take(run=run, token=lane.token):
        connection.close()
        return "surplus"
    checked = renewed = time.monotonic()
    renew_every = lease_seconds(run) / 3
    try:
        while True:
            now = time.monotonic()
            if now - checked >= STATUS_CHECK_SECONDS:
                checked = now
                if not JudgeRun.objects.filter(pk=run_id, status=JudgeRun.Status.RUNNING).exists():
                    return "stopped"
            if max_seconds is not None and now - started > max_seconds:
                return "timeout"
            claimed = task_claim(run=run, token=lane.token)
            if claimed is None:
                run_finish_if_complete(run_id=run_id)
                return "finished"
            if now - renewed >= renew_every:
                renewed = now
                _lane_slot_renew(run=run, token=lane.token)
            if isinstance(claimed, float):
                time.sleep(claimed)
                continue
            task_execute(run=run, task=claimed, lane=lane)
    finally:
        _lane_slot_release(run_id=run_id, token=lane.token)
        connection.close()


def task_claim(*, run: JudgeRun, token: str) -> JudgeTask | float | None:
    """The next task for a lane; or seconds to wait (retries not yet due, or tasks held by
    other lanes); or None when every task has ended."""
    now = timezone.now()
    lease = timedelta(seconds=lease_seconds(run))
    claimable = Q(status=JudgeTask.Status.PENDING) & (
        Q(not_before__isnull=True) | Q(not_before__lte=now)
    ) | Q(status=JudgeTask.Status.RUNNING, lease_until__lt=now)
    with transaction.atomic():
        # The rows the attempt reads come with the claim: one query, not two.
        candidates = (
            JudgeTask.objects.filter(claimable, run_id=run.pk)
            .select_related("response__case", "case")
            .order_by("pk")
        )
        if connection.features.has_select_for_update_skip_locked:
            candidates = candidates.select_for_update(skip_locked=True, of=("self",))
        task = candidates.first()
        if task is not None:
            JudgeTask.objects.filter(pk=task.pk).update(
                status=JudgeTask.Status.RUNNING,
                lease_token=token,
                lease_until=now + lease,
                attempts=F("attempts") + 1,
            )
            task.attempts += 1
            task.lease_token = token
            return task
    open_tasks = JudgeTask.objects.filter(
        run_id=run.pk, status__in=[JudgeTask.Status.PENDING, JudgeTask.Status.RUNNING]
    ).aggregate(
        retry_at=Min("not_before", filter=Q(status=JudgeTask.Status.PENDING)),
        lease_at=Min("lease_until", filter=Q(status=JudgeTask.Status.RUNNING)),
    )
    due = [t for t in (open_tasks["retry_at"], open_tasks["lease_at"]) if t is not None]
    if not due:
        return None
    return min(IDLE_POLL_SECONDS, max(0.05, (min(due) - now).total_seconds()))


def run_finish_if_complete(*, run_id: int) -> bool:
    with transaction.atomic():
        if JudgeTask.objects.filter(
            run_id=run_id, status__in=[JudgeTask.Status.PENDING, JudgeTask.Status.RUNNING]
        ).exists():
            return False
        return bool(
            JudgeRun.objects.filter(pk=run_id, status=JudgeRun.Status.RUNNING).update(
                status=JudgeRun.Status.FINISHED, finished=timezone.now()
            )
        )


def run_here(*, run_id: int, lanes: int, processes: int = 1) -> None:
    """Do the whole run from this process with `lanes` lane threads: no worker needed.

    With `processes` > 1 the lanes are shared out over child processes and this one:
    a lane spends most of a call in Python (building the request, the SDK, the ORM), so
    one interpreter's lock caps a run well below what the endpoint could serve. The lane
    slots still bound the calls in flight, and this process's own lanes keep going until
    no task is open, so a child that dies only delays the tasks it held (their leases run
    out and a living lane takes them over)."""
    processes = max(1, min(processes, lanes))
    shares = [lanes // processes + (1 if i < lanes % processes else 0) for i in range(processes)]
    children = []
    if processes > 1:
        import multiprocessing

        from judging.lane_process import lanes_in_child

        # Spawned, not forked: a forked child would inherit (and, on exit, close) the
        # database connections of this process's other threads.
        context = multiprocessing.get_context("spawn")
        database = connections["default"].settings_dict["NAME"]
        for share in shares[1:]:
            child = context.Process(
                target=lanes_in_child, args=(run_id, share, str(database)), daemon=True
            )
            child.start()
            children.append(child)
    try:
        lanes_in_threads(run_id, shares[0])
    finally:
        for child in children:
            child.join()


def lanes_in_threads(run_id: int, lanes: int) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=lanes, thread_name_prefix="judge-lane") as pool:
        for future in [pool.submit(lane_run, run_id=run_id) for _ in range(lanes)]:
            future.result()
