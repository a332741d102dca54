"""Celery entry points: they take ids and call the services; running one twice does no
harm (tasks are claimed under a lease and written once)."""

from celery import shared_task

from judging.models import JudgeRun
from judging.services.execution import lane_run

# A lane gives its worker slot back now and then, so paused runs and new runs get a turn
# and a lost lane is replaced quickly.
LANE_SECONDS = 60


@shared_task(acks_late=True, reject_on_worker_lost=True)
def judge_lane(run_id: int) -> str:
    outcome = lane_run(run_id=run_id, max_seconds=LANE_SECONDS)
    if outcome == "timeout":
        judge_lane.delay(run_id)
    return outcome


def dispatch_to_workers(run: JudgeRun) -> None:
    """Queue the run's lanes: as many as the config allows requests in flight."""
    lanes = max(1, int(run.settings_snapshot.get("max_concurrency", 1)))
    for _ in range(lanes):
        judge_lane.delay(run.pk)
