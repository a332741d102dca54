"""The one lifecycle of background jobs (core.jobs), run with both real jobs: imports and
exports. The work itself is the tests' own; the lifecycle around it is the production one."""

import errno
import os
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from annotation.models import Benchmark, ImportJob
from annotation.services.import_jobs import import_job_run, import_jobs_revive
from core.jobs import (
    BROKER,
    DONE,
    FAILED,
    INTERRUPTED,
    SKIPPED,
    TAKEN_OVER,
    Attempt,
    LeaseLost,
    Lifecycle,
)
from leaderboard.exports.services import export_job_run, export_jobs_revive
from leaderboard.models import ExportJob

pytestmark = pytest.mark.django_db

LEASE = timedelta(minutes=5)


def import_job(**values) -> ImportJob:
    return ImportJob.objects.create(kind="benchmark", benchmark_slug="hb", size=1, **values)


def export_job(**values) -> ExportJob:
    benchmark, _ = Benchmark.objects.get_or_create(slug="hb", defaults={"name": "HB"})
    return ExportJob.objects.create(benchmark=benchmark, kind="votes", format="csv", **values)


MAKERS = {"import": import_job, "export": export_job}


@pytest.fixture(params=sorted(MAKERS))
def make(request):
    return MAKERS[request.param]


class Worker:
    """A lifecycle for a real job model whose messages are kept, not sent (unless `send`
    says otherwise), and whose released jobs are noted."""

    def __init__(self, model, send=None, **options) -> None:
        self.sent: list[int] = []
        self.released: list[int] = []
        self.lifecycle = Lifecycle(
            model=model,
            send=send or self.sent.append,
            lease=LEASE,
            release=lambda job: self.released.append(job.pk),
            **options,
        )


def lifecycle_of(job, **options) -> Worker:
    return Worker(type(job), **options)


def expire(job, *, ago=timedelta(seconds=1)) -> None:
    type(job).objects.filter(pk=job.pk).update(lease_until=timezone.now() - ago)


def fresh(job):
    job.refresh_from_db()
    return job


# --- queueing -------------------------------------------------------------------------------


def test_a_queued_job_is_sent_once_its_transaction_commits(django_capture_on_commit_callbacks):
    worker = Worker(ImportJob)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        job = worker.lifecycle.queue(kind="benchmark", benchmark_slug="hb", size=3)
        assert worker.sent == []
    assert len(callbacks) == 1 and worker.sent == [job.pk]
    assert fresh(job).status == "queued" and job.attempts == 0


def test_a_job_no_worker_could_be_told_of_fails_with_broker(settings, make):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    job = make()

    def refuse(job_id: int) -> None:
        raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")

    worker = lifecycle_of(job, send=refuse, released={"claim": "gone"})
    worker.lifecycle.dispatch(job.pk)
    job = fresh(job)
    assert (job.status, job.error_code, job.error_detail) == (
        FAILED,
        BROKER,
        "ConnectionRefusedError",
    )
    assert job.finished is not None and job.claim == "gone" and worker.released == [job.pk]
    assert "not reachable" in job.error_message


def test_a_broker_failure_is_raised_when_tasks_run_in_process(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    job = import_job()

    def refuse(job_id: int) -> None:
        raise ConnectionRefusedError("no broker")

    with pytest.raises(ConnectionRefusedError):
        Worker(ImportJob, send=refuse).lifecycle.dispatch(job.pk)
    assert fresh(job).status == "queued"


# --- claiming -------------------------------------------------------------------------------


def test_a_claim_holds_the_job_until_its_lease_runs_out(make):
    job = make()
    lifecycle = lifecycle_of(job).lifecycle
    first = lifecycle.claim(job.pk, "first")
    assert isinstance(first, Attempt)
    job = fresh(job)
    assert (job.status, job.claim, job.attempts) == ("running", "first", 1)
    assert job.started is not None and job.lease_until > timezone.now() + LEASE / 2
    assert lifecycle.claim(job.pk, "second") is None  # the first still holds it
    expire(job)
    assert lifecycle.claim(job.pk, "second") is not None
    job = fresh(job)
    assert (job.claim, job.attempts) == ("second", 2)


def test_a_finished_job_is_never_claimed(make):
    job = make(status="done")
    assert lifecycle_of(job).lifecycle.claim(job.pk, "late") is None
    assert fresh(job).attempts == 0


def test_signs_of_life_keep_a_job_whose_lease_ran_out(make):
    job = make()
    alive = {"yes": True}
    lifecycle = lifecycle_of(job, still_alive=lambda job, now: alive["yes"]).lifecycle
    lifecycle.claim(job.pk, "slow")
    expire(job)
    assert lifecycle.revive() == [] and lifecycle.claim(job.pk, "next") is None
    alive["yes"] = False
    assert lifecycle.revive() == [job.pk]
    assert lifecycle.claim(job.pk, "next") is not None


def test_a_job_whose_every_attempt_died_is_failed_as_interrupted(make):
    job = make()
    worker = lifecycle_of(job, max_attempts=2)
    for token in ("one", "two"):
        assert worker.lifecycle.claim(job.pk, token) is not None
        expire(job)
    assert worker.lifecycle.revive() == [job.pk]
    assert worker.lifecycle.run(job.pk, lambda attempt: attempt.finish(DONE)) == SKIPPED
    job = fresh(job)
    assert (job.status, job.error_code, job.error_detail) == (FAILED, INTERRUPTED, "2")
    assert job.lease_until is None and job.finished is not None
    assert worker.released == [job.pk] and worker.lifecycle.revive() == []
    assert "interrupted" in job.error_message


# --- running --------------------------------------------------------------------------------


def test_the_work_records_its_outcome_and_the_job_is_released(make):
    job = make()
    worker = lifecycle_of(job)

    def work(attempt: Attempt) -> str:
        assert attempt.job.pk == job.pk and attempt.job.status == "running"
        return attempt.finish(DONE, claim="kept")

    assert worker.lifecycle.run(job.pk, work) == DONE
    job = fresh(job)
    assert (job.status, job.attempts, job.lease_until) == (DONE, 1, None)
    assert job.finished >= job.started and worker.released == [job.pk]
    assert worker.lifecycle.run(job.pk, work) == SKIPPED  # done once, never again
    assert fresh(job).attempts == 1


@pytest.mark.parametrize(
    ("error", "code", "detail"),
    [
        (
            OSError(errno.ENOSPC, "No space left on device", "/x"),
            "ENOSPC",
            "No space left on device",
        ),
        (PermissionError(errno.EACCES, "Permission denied"), "EACCES", "Permission denied"),
        (
            ValueError("a value the work could not take"),
            "ValueError",
            "a value the work could not take",
        ),
        (OSError("no errno"), "OSError", "no errno"),
    ],
)
def test_an_exception_the_work_lets_through_fails_the_job_with_its_cause(make, error, code, detail):
    job = make()
    worker = lifecycle_of(job)

    def work(attempt: Attempt) -> str:
        raise error

    assert worker.lifecycle.run(job.pk, work) == FAILED
    job = fresh(job)
    assert (job.status, job.error_code, job.error_detail) == (FAILED, code, detail)
    assert job.lease_until is None and worker.released == [job.pk]
    assert job.error_message


def test_a_cause_longer_than_its_field_is_cut_to_fit():
    job = export_job()  # an export's cause has 16 characters, an import's 32

    class AnExceptionWithAVeryLongNameIndeed(Exception):
        pass

    def work(attempt: Attempt) -> str:
        return attempt.fail(AnExceptionWithAVeryLongNameIndeed("x" * 900))

    assert lifecycle_of(job).lifecycle.run(job.pk, work) == FAILED
    job = fresh(job)
    assert job.error_code == "AnExceptionWithA" and len(job.error_detail) == 500


def test_an_attempt_that_lost_its_job_records_nothing_and_undoes_its_work(make):
    job = make()
    worker = lifecycle_of(job)

    def work(attempt: Attempt) -> str:
        expire(job)
        assert worker.lifecycle.claim(job.pk, "successor") is not None
        with transaction.atomic():
            Benchmark.objects.create(slug="written-by-the-lost-attempt", name="x")
            return attempt.finish(DONE)

    assert worker.lifecycle.run(job.pk, work) == TAKEN_OVER
    job = fresh(job)
    assert (job.status, job.claim, job.attempts) == ("running", "successor", 2)
    assert not Benchmark.objects.filter(slug="written-by-the-lost-attempt").exists()
    assert worker.released == []  # the successor's files are not the loser's to remove


def test_a_failure_of_an_attempt_that_lost_its_job_is_not_recorded(make):
    job = make()
    worker = lifecycle_of(job)

    def work(attempt: Attempt) -> str:
        worker.lifecycle.model.objects.filter(pk=job.pk).update(claim="successor")
        raise OSError(errno.EIO, "Input/output error")

    assert worker.lifecycle.run(job.pk, work) == TAKEN_OVER
    assert (fresh(job).status, job.error_code) == ("running", "")


def test_a_heartbeat_renews_the_lease_only_when_due_and_stops_a_lost_attempt(make):
    job = make()
    lifecycle = lifecycle_of(job, renew_every=timedelta(seconds=30)).lifecycle
    attempt = lifecycle.claim(job.pk, "mine")
    expire(job, ago=-timedelta(seconds=10))  # ten seconds left
    attempt.heartbeat()  # renewed just now: not due
    assert fresh(job).lease_until < timezone.now() + timedelta(seconds=11)
    attempt.renewed -= 31
    attempt.heartbeat()
    assert fresh(job).lease_until > timezone.now() + LEASE - timedelta(seconds=5)
    lifecycle.model.objects.filter(pk=job.pk).update(claim="successor")
    with pytest.raises(LeaseLost):
        attempt.renew()


# --- reviving -------------------------------------------------------------------------------


def test_revive_finds_dead_and_forgotten_jobs_and_nothing_else(make):
    lifecycle = lifecycle_of(make()).lifecycle
    lifecycle.model.objects.all().delete()
    queued_now, queued_long_ago = make(), make()
    lifecycle.model.objects.filter(pk=queued_long_ago.pk).update(
        created=timezone.now() - timedelta(hours=1)
    )
    held, dead, done = make(), make(), make(status="done")
    lifecycle.claim(held.pk, "alive")
    lifecycle.claim(dead.pk, "gone")
    expire(dead)
    assert sorted(lifecycle.revive()) == sorted([dead.pk, queued_long_ago.pk])
    assert queued_now.pk not in lifecycle.revive() and done.pk not in lifecycle.revive()


# --- both jobs use it -----------------------------------------------------------------------


def test_an_export_whose_message_was_lost_is_queued_again():
    job = export_job()
    assert export_jobs_revive() == []
    ExportJob.objects.filter(pk=job.pk).update(created=timezone.now() - timedelta(hours=1))
    assert export_jobs_revive() == [job.pk]


def test_an_export_whose_workers_kept_dying_is_failed_as_interrupted():
    job = export_job(status="running", claim="third", attempts=3)
    expire(job)
    assert export_job_run(job_id=job.pk) == SKIPPED
    job = fresh(job)
    assert (job.status, job.error_code) == (FAILED, INTERRUPTED)
    assert "3 attempts" in job.error_message and export_jobs_revive() == []


def test_an_import_whose_workers_kept_dying_is_failed_and_its_upload_removed(settings, tmp_path):
    settings.IMPORT_ROOT = tmp_path
    (tmp_path / "big.upload").write_bytes(b"{}\n")
    job = import_job(upload="big.upload", status="running", claim="third", attempts=3)
    expire(job)
    assert import_job_run(job_id=job.pk) == SKIPPED
    job = fresh(job)
    assert (job.status, job.error_code, job.upload) == (FAILED, INTERRUPTED, "")
    assert "3 attempts" in job.error_message and "nothing was imported" in job.error_message
    assert os.listdir(tmp_path) == [] and import_jobs_revive() == []
