"""One lifecycle for every background job (imports, exports): queued when the request's
transaction commits, claimed by one worker at a time under a lease, and ended by exactly one
recorded outcome.

An attempt holds its job with a fresh token until its lease runs out; when its worker dies,
the job is presumed dead once the lease has run out and the job's own signs of life (an
import's progress file) are stale, and the next attempt takes it over. An attempt that lost
its job records nothing. Every path ends in an outcome: done, failed with its cause (an errno
name, an exception's name, BROKER when no worker could be told, INTERRUPTED when every
attempt died), or a job's own ending (a rejected file). Nothing is retried forever.
"""

import errno
import logging
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

logger = logging.getLogger(__name__)

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
# What a run answers when it records nothing: the job was not its to run, or was taken from it.
SKIPPED, TAKEN_OVER = "skipped", "taken over"
# Causes of failures the lifecycle itself records.
BROKER = "BROKER"
INTERRUPTED = "INTERRUPTED"


class LeaseLost(Exception):
    """Another attempt took the job over (this one was presumed dead)."""


class BackgroundJob(models.Model):
    """What every background job records about its lifecycle. Each job redefines `status`
    with its own choices, which include queued, running, done and failed."""

    status = models.CharField(max_length=8, default=QUEUED)
    # Who is working on the job: a fresh token per attempt, and until when it holds the job.
    claim = models.CharField(max_length=32, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # A failure: its cause and the system's own words, put into the reader's language when
    # shown (each job's failure_message).
    error_code = models.CharField(max_length=32, blank=True)
    error_detail = models.CharField(max_length=500, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created", "-pk"]

    @property
    def is_active(self) -> bool:
        return self.status in (QUEUED, RUNNING)


def failure_cause(exc: BaseException) -> tuple[str, str]:
    """An exception as a recorded cause: (the errno name, or the exception's name; its text)."""
    if isinstance(exc, OSError):
        code = errno.errorcode.get(exc.errno, "") if exc.errno else ""
        return code or type(exc).__name__, exc.strerror or str(exc)
    return type(exc).__name__, str(exc)


def _max_length(model: type[BackgroundJob], name: str) -> int:
    return model._meta.get_field(name).max_length


@dataclass
class Attempt:
    """One worker's hold on a job, from its claim to the outcome it records."""

    lifecycle: "Lifecycle"
    job: BackgroundJob
    token: str
    renewed: float = field(default_factory=time.monotonic)

    def _mine(self):
        return self.lifecycle.model.objects.filter(pk=self.job.pk, claim=self.token, status=RUNNING)

    def renew(self) -> None:
        """Extend the lease; raises LeaseLost when another attempt holds the job now."""
        if not self._mine().update(lease_until=timezone.now() + self.lifecycle.lease):
            raise LeaseLost
        self.renewed = time.monotonic()

    def heartbeat(self) -> None:
        """Renew the lease when it was last renewed more than `renew_every` ago: cheap
        enough to call for every piece of work done."""
        if time.monotonic() - self.renewed > self.lifecycle.renew_every.total_seconds():
            self.renew()

    def finish(self, status: str, **values) -> str:
        """Record the outcome; raises LeaseLost (and records nothing) when another attempt
        holds the job now. Inside a transaction, that undoes the attempt's work."""
        recorded = self._mine().update(
            status=status,
            lease_until=None,
            finished=timezone.now(),
            **self.lifecycle.released,
            **values,
        )
        if not recorded:
            raise LeaseLost
        return status

    def fail(self, exc: BaseException, *, detail: str | None = None, **values) -> str:
        """Record the failure with its cause; `detail` replaces the exception's own words."""
        model = self.lifecycle.model
        code, words = failure_cause(exc)
        words = words if detail is None else detail
        if isinstance(exc, OSError):
            logger.warning("%s %s failed: %s", model._meta.model_name, self.job.pk, exc)
        else:
            logger.error("%s %s failed", model._meta.model_name, self.job.pk, exc_info=exc)
        return self.finish(
            FAILED,
            error_code=code[: _max_length(model, "error_code")],
            error_detail=words[: _max_length(model, "error_detail")],
            **values,
        )


@dataclass(frozen=True)
class Lifecycle:
    """The lifecycle of one kind of job; each app keeps the work itself."""

    model: type[BackgroundJob]
    # Hands a job's id to a worker (the task's delay); raises when the broker refuses it.
    send: Callable[[int], None]
    # How long an attempt holds its job without news.
    lease: timedelta
    renew_every: timedelta = timedelta(seconds=30)
    # A queued job still waiting after this long lost its message (the broker restarted).
    forgotten_after: timedelta = timedelta(minutes=10)
    # Attempts that died before a job is failed as interrupted rather than tried again.
    max_attempts: int = 3
    # Signs of life of an attempt whose lease ran out (the lease may not be renewable).
    still_alive: Callable[[BackgroundJob, datetime], bool] | None = None
    # Values recorded with every outcome, and what to remove once the job has one.
    released: Mapping[str, object] = field(default_factory=dict)
    release: Callable[[BackgroundJob], None] | None = None
    # Relations loaded with a claimed job, for its work.
    related: tuple[str, ...] = ()

    def queue(self, **fields) -> BackgroundJob:
        """Record a job and hand it to a worker once the transaction commits."""
        with transaction.atomic():
            job = self.model.objects.create(**fields)
            transaction.on_commit(lambda: self.dispatch(job.pk))
        return job

    def dispatch(self, job_id: int) -> None:
        """Hand the job to a worker; a job no worker could be told of fails with BROKER."""
        try:
            self.send(job_id)
        except Exception as exc:  # the broker's client raises many types; all mean "not queued"
            if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
                raise
            logger.warning("%s %s not queued: %s", self.model._meta.model_name, job_id, exc)
            self._end(job_id, QUEUED, BROKER, type(exc).__name__)

    def _end(self, job_id: int, status: str, code: str, detail: str) -> None:
        """Fail a job no attempt holds: it was never queued, or every attempt died."""
        with transaction.atomic():
            job = self.model.objects.select_for_update().filter(pk=job_id, status=status).first()
            if job is None:
                return
            self.model.objects.filter(pk=job_id).update(
                status=FAILED,
                error_code=code,
                error_detail=detail,
                lease_until=None,
                finished=timezone.now(),
                **self.released,
            )
        if self.release:
            self.release(job)

    def presumed_dead(self, job: BackgroundJob, now: datetime) -> bool:
        if job.lease_until and job.lease_until > now:
            return False
        return not (self.still_alive and self.still_alive(job, now))

    def claim(self, job_id: int, token: str) -> Attempt | None:
        """Take the job for an attempt: None when it has its outcome, another attempt holds
        it, or every attempt so far died (then it is failed as interrupted)."""
        now = timezone.now()
        with transaction.atomic():
            job = (
                self.model.objects.select_for_update(of=("self",))
                .select_related(*self.related)
                .filter(pk=job_id)
                .first()
            )
            if job is None or job.status not in (QUEUED, RUNNING):
                return None
            if job.status == RUNNING and not self.presumed_dead(job, now):
                return None  # another worker is on it
            if job.status == QUEUED or job.attempts < self.max_attempts:
                job.status = RUNNING
                job.claim = token
                job.lease_until = now + self.lease
                job.started = now
                job.attempts += 1
                job.save(update_fields=["status", "claim", "lease_until", "started", "attempts"])
                return Attempt(self, job, token)
        # Its worker died as often as it may: a job that kills its workers is not retried.
        self._end(job_id, RUNNING, INTERRUPTED, str(job.attempts))
        return None

    def run(self, job_id: int, work: Callable[[Attempt], str]) -> str:
        """Claim the job and do its work, which records the outcome through the attempt and
        returns it; an exception the work lets through fails the job with its cause.
        Idempotent: a finished job, or one another worker holds, is left alone."""
        attempt = self.claim(job_id, uuid.uuid4().hex)
        if attempt is None:
            return SKIPPED
        try:
            try:
                outcome = work(attempt)
            except LeaseLost:
                raise
            except Exception as exc:
                outcome = attempt.fail(exc)
        except LeaseLost:
            return TAKEN_OVER
        if self.release:
            self.release(attempt.job)
        return outcome

    def revive(self) -> list[int]:
        """Ids of jobs to queue again: running ones whose worker died, and queued ones whose
        message was lost."""
        now = timezone.now()
        running = self.model.objects.filter(status=RUNNING, lease_until__lt=now)
        dead = [job.pk for job in running if self.presumed_dead(job, now)]
        forgotten = self.model.objects.filter(
            status=QUEUED, created__lt=now - self.forgotten_after
        ).values_list("pk", flat=True)
        return dead + list(forgotten)
