"""Celery entry points of the annotation app: they take ids and call the services."""

from celery import shared_task
from celery.signals import worker_ready

from annotation.services.import_jobs import import_job_run, import_jobs_revive


@shared_task(acks_late=True, reject_on_worker_lost=True)
def import_job_task(job_id: int) -> str:
    return import_job_run(job_id=job_id)


@worker_ready.connect
def _revive_import_jobs(sender=None, **kwargs) -> None:
    # A worker that starts (again) picks up imports whose worker died or whose message
    # was lost.
    for job_id in import_jobs_revive():
        import_job_task.delay(job_id)
