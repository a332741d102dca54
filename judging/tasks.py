"""Celery entry points: they take ids and call the services; running one twice does no
harm (tasks are claimed under a lease and written once)."""

import time

from celery import shared_task
from celery.signals import worker_ready

from judging.models import JudgeRun
from judging.services.lanes import lane_run
from judging.services.runs import judge_run_revive

# A lane gives its worker slot back now and then, so paused runs and new runs get a turn
# and a lost lane is replaced quickly.
LANE_SECONDS = 60
WATCH_INTERVAL_SECONDS = 2.0


@shared_task(acks_late=True, reject_on_worker_lost=True)
def judge_lane(run_id: int) -> str:
    outcome = lane_run(run_id=run_id, max_seconds=LANE_SECONDS)
    if outcome == "timeout":
        judge_lane.delay(run_id)
    return outcome


def dispatch_to_workers(run: JudgeRun, lanes: int | None = None) -> None:
    """Queue lanes for the run: by default as many as the config allows requests in flight
    (surplus lanes find every slot taken and stop at once)."""
    if lanes is None:
        lanes = max(1, int(run.settings_snapshot.get("max_concurrency", 1)))
    for _ in range(lanes):
        judge_lane.delay(run.pk)


def dispatch_and_watch(run: JudgeRun) -> None:
    dispatch_to_workers(run)
    judge_run_watch.delay(run.pk)


@shared_task(bind=True, acks_late=True)
def judge_run_watch(self, run_id: int) -> int:
    """While the run is running, give it lanes back whenever some are lost (a lane killed
    with its worker holds its slot until the lease runs out, then the slot is free again).
    Watches for a while, then hands over to a fresh message, like a lane."""
    revived = 0
    deadline = time.monotonic() + LANE_SECONDS
    while time.monotonic() < deadline:
        run = JudgeRun.objects.filter(pk=run_id).first()
        if run is None or run.status != JudgeRun.Status.RUNNING:
            return revived
        revived += judge_run_revive(run=run, dispatch=dispatch_to_workers)
        if self.request.is_eager:  # in-process: the lanes have already done the work
            return revived
        time.sleep(WATCH_INTERVAL_SECONDS)
    judge_run_watch.delay(run_id)
    return revived


@worker_ready.connect
def _watch_running_runs(sender=None, **kwargs) -> None:
    # A worker that starts (again) looks after runs whose lanes were lost with another.
    for run_id in JudgeRun.objects.filter(status=JudgeRun.Status.RUNNING).values_list(
        "pk", flat=True
    ):
        judge_run_watch.delay(run_id)
