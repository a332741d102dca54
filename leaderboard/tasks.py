"""Celery entry points of the leaderboard app: they take ids and call the services."""

from celery import shared_task
from celery.signals import worker_ready

from leaderboard.exports.services import export_job_run, export_jobs_revive
from leaderboard.sequential.services import round_decision_check


@shared_task(acks_late=True, reject_on_worker_lost=True)
def export_job_task(job_id: int) -> str:
    return export_job_run(job_id=job_id)


@worker_ready.connect
def _revive_export_jobs(sender=None, **kwargs) -> None:
    # A worker that starts (again) picks up export jobs whose worker died mid-file.
    for job_id in export_jobs_revive():
        export_job_task.delay(job_id)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def round_decision_check_task(round_id: int) -> str:
    return round_decision_check(round_id=round_id)
