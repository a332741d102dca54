"""Background imports: an upload above settings.IMPORT_BACKGROUND_BYTES is stored under
settings.IMPORT_ROOT and imported by a Celery worker, so no request waits for it.

The worker runs the same importer as a direct upload, in one transaction that also records
the job as done: a file is imported whole or not at all, and a job is "done" exactly when
its import is in the database. While it runs, the worker writes how far it has read into a
small file beside the upload (the transaction hides everything else from other readers).
"""

import errno
import json
import logging
import os
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.importing.issues import ImportIssue, ImportRejected, Text, shown
from annotation.models import Benchmark, ImportJob
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import BenchmarkNotFound, responses_import
from config.broker import broker_check

logger = logging.getLogger(__name__)

FINISHED = (ImportJob.Status.DONE, ImportJob.Status.REJECTED, ImportJob.Status.FAILED)
# How long an attempt holds its job. The import is one transaction, so the lease cannot be
# renewed where others would see it; a worker that starts treats a running job as dead
# when its lease ran out and its progress file has not moved for STALE.
LEASE = timedelta(minutes=10)
STALE = timedelta(minutes=2)
# A queued job still waiting after this long lost its message (the broker restarted).
FORGOTTEN = timedelta(minutes=10)
PROGRESS_EVERY_LINES = 1000


class ImportUploadNotStored(Exception):
    """The upload could not be written to the import folder; nothing was recorded."""


class LeaseLost(Exception):
    """Another attempt took the job over (this one was presumed dead)."""


@dataclass(frozen=True)
class Progress:
    lines: int
    bytes: int


def import_root() -> Path:
    return Path(settings.IMPORT_ROOT)


def import_in_background(size: int) -> bool:
    """Whether a file of `size` bytes is imported by a worker rather than in the request."""
    return size > settings.IMPORT_BACKGROUND_BYTES


def import_job_create(
    *,
    kind: str,
    chunks: Iterable[bytes],
    filename: str,
    benchmark_slug: str,
    benchmark_name: str = "",
    system_name: str = "",
    system_kind: str = "",
    difficulty: str | None = None,
    user=None,
) -> ImportJob:
    """Store the upload and queue its import once the transaction commits.

    Raises BenchmarkNotFound (an answers file for a benchmark that does not exist),
    BrokerUnreachable or ImportUploadNotStored; in each case nothing is recorded."""
    if (
        kind == ImportJob.Kind.RESPONSES
        and not Benchmark.objects.filter(slug=benchmark_slug).exists()
    ):
        raise BenchmarkNotFound(benchmark_slug)
    broker_check()
    root = import_root()
    name = f"{uuid.uuid4().hex}.upload"
    try:
        root.mkdir(parents=True, exist_ok=True)
        size = _store(chunks, root / name)
    except OSError as exc:
        raise ImportUploadNotStored(
            _("The upload could not be stored in %(folder)s (%(reason)s); nothing was imported.")
            % {"folder": root, "reason": exc.strerror or exc}
        ) from exc
    try:
        with transaction.atomic():
            job = ImportJob.objects.create(
                kind=kind,
                benchmark_slug=benchmark_slug,
                benchmark_name=benchmark_name,
                system_name=system_name,
                system_kind=system_kind,
                difficulty=difficulty or "",
                filename=_printable(filename)[:200],
                upload=name,
                size=size,
                requested_by=user,
            )
            transaction.on_commit(lambda: _dispatch(job.pk))
    except BaseException:
        (root / name).unlink(missing_ok=True)
        raise
    return job


def _store(chunks: Iterable[bytes], path: Path) -> int:
    size = 0
    try:
        with open(path, "xb") as out:
            for chunk in chunks:
                out.write(chunk)
                size += len(chunk)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return size


def _printable(name: str) -> str:
    return "".join(c for c in name if c.isprintable())


def _dispatch(job_id: int) -> None:
    from annotation.tasks import import_job_task

    try:
        import_job_task.delay(job_id)
    except Exception as exc:  # the broker's client raises many types; all mean "not queued"
        if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
            raise
        logger.warning("import job %s could not be queued: %s", job_id, exc)
        job = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).first()
        if job is not None:
            _finish(
                ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.QUEUED),
                status=ImportJob.Status.FAILED,
                error_code="BROKER",
                error_detail=type(exc).__name__,
            )
            _remove_files(job)


def _progress_path(job: ImportJob) -> Path:
    return import_root() / f"{job.upload}.progress"


def import_job_progress(job: ImportJob) -> Progress:
    """How far the job has read: from the worker's progress file while it runs."""
    if job.status != ImportJob.Status.RUNNING or not job.upload:
        return Progress(job.lines_read, job.bytes_read)
    try:
        data = json.loads(_progress_path(job).read_text())
        return Progress(int(data["lines"]), int(data["bytes"]))
    except (OSError, ValueError, KeyError, TypeError):
        return Progress(0, 0)


class _CountingLines:
    """The upload's lines, counted as the importer reads them, with the count written
    every PROGRESS_EVERY_LINES lines for the pages to show."""

    def __init__(self, handle, progress: Path) -> None:
        self.handle = handle
        self.progress = progress
        self.lines = 0
        self.bytes = 0

    def __iter__(self) -> Iterator[bytes]:
        for line in self.handle:
            self.lines += 1
            self.bytes += len(line)
            if self.lines % PROGRESS_EVERY_LINES == 0:
                self.write()
            yield line
        self.write()

    def write(self) -> None:
        temp = self.progress.with_name(self.progress.name + ".tmp")
        try:
            temp.write_text(json.dumps({"lines": self.lines, "bytes": self.bytes}))
            os.replace(temp, self.progress)
        except OSError as exc:  # progress is a courtesy; the import goes on without it
            logger.warning("import progress not written to %s: %s", self.progress, exc)


def _claim(job_id: int, token: str) -> ImportJob | None:
    now = timezone.now()
    with transaction.atomic():
        job = ImportJob.objects.select_for_update().filter(pk=job_id).first()
        if job is None or job.status in FINISHED:
            return None
        if job.status == ImportJob.Status.RUNNING and not _presumed_dead(job, now):
            return None  # another worker is on it
        job.status = ImportJob.Status.RUNNING
        job.claim = token
        job.lease_until = now + LEASE
        job.started = now
        job.attempts += 1
        job.save(update_fields=["status", "claim", "lease_until", "started", "attempts"])
    return job


def _presumed_dead(job: ImportJob, now) -> bool:
    if job.lease_until and job.lease_until > now:
        return False
    try:
        moved = _progress_path(job).stat().st_mtime
    except OSError:
        return True
    return now.timestamp() - moved > STALE.total_seconds()


def _run_import(job: ImportJob, lines: _CountingLines):
    if job.kind == ImportJob.Kind.BENCHMARK:
        return benchmark_import(
            chunks=lines,
            benchmark_slug=job.benchmark_slug,
            benchmark_name=job.benchmark_name,
            difficulty=job.difficulty or None,
            user=job.requested_by,
        )
    return responses_import(
        chunks=lines,
        benchmark_slug=job.benchmark_slug,
        system_name=job.system_name,
        system_kind=job.system_kind,
    )


def import_job_run(*, job_id: int) -> str:
    """Import the job's upload. Idempotent: a finished job, or one another worker holds,
    is left alone; a job whose worker died is imported again (its transaction was rolled
    back with the worker's connection)."""
    token = uuid.uuid4().hex
    job = _claim(job_id, token)
    if job is None:
        return "skipped"
    mine = ImportJob.objects.filter(pk=job.pk, claim=token, status=ImportJob.Status.RUNNING)
    path = import_root() / job.upload
    lines = None
    try:
        with path.open("rb") as handle:
            lines = _CountingLines(handle, _progress_path(job))
            with transaction.atomic():
                summary = _run_import(job, lines)
                done = _finish(
                    mine,
                    status=ImportJob.Status.DONE,
                    summary=summary.as_dict(),
                    lines_read=lines.lines,
                    bytes_read=lines.bytes,
                )
                if not done:
                    raise LeaseLost  # rolls this attempt's import back
    except LeaseLost:
        return "taken over"
    except ImportRejected as exc:
        outcome = ImportJob.Status.REJECTED
        _finish(
            mine,
            status=outcome,
            errors=[issue.as_dict() for issue in exc.errors],
            error_total=exc.total,
            **_read(lines),
        )
    except BenchmarkNotFound:
        outcome = ImportJob.Status.REJECTED
        issue = ImportIssue(
            0,
            Text(
                gettext_noop("no benchmark with slug %(slug)s"), {"slug": shown(job.benchmark_slug)}
            ),
        )
        _finish(mine, status=outcome, errors=[issue.as_dict()], error_total=1, **_read(lines))
    except OSError as exc:
        outcome = ImportJob.Status.FAILED
        code = errno.errorcode.get(exc.errno, "") if exc.errno else ""
        _finish(
            mine,
            status=outcome,
            error_code=code or type(exc).__name__[:32],
            error_detail=f"{exc.strerror or exc}: {exc.filename or path}"[:500],
            **_read(lines),
        )
        logger.warning("import job %s failed: %s", job.pk, exc)
    except Exception as exc:
        outcome = ImportJob.Status.FAILED
        _finish(
            mine,
            status=outcome,
            error_code=type(exc).__name__[:32],
            error_detail=str(exc)[:500],
            **_read(lines),
        )
        logger.exception("import job %s failed", job.pk)
    else:
        outcome = ImportJob.Status.DONE
    _remove_files(job)
    return outcome


def _read(lines: _CountingLines | None) -> dict:
    return {"lines_read": lines.lines, "bytes_read": lines.bytes} if lines else {}


def _finish(jobs, *, status: str, **values) -> int:
    """Record a job's outcome; the upload is no longer needed once the job has one."""
    return jobs.update(
        status=status, upload="", lease_until=None, finished=timezone.now(), **values
    )


def _remove_files(job: ImportJob) -> None:
    for path in (import_root() / job.upload, _progress_path(job)):
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            logger.warning("could not remove %s: %s", path, exc)


def import_jobs_revive() -> list[int]:
    """Ids of jobs to queue again: running ones whose worker died, and queued ones whose
    message was lost."""
    now = timezone.now()
    running = [
        job.pk
        for job in ImportJob.objects.filter(status=ImportJob.Status.RUNNING, lease_until__lt=now)
        if _presumed_dead(job, now)
    ]
    forgotten = ImportJob.objects.filter(
        status=ImportJob.Status.QUEUED, created__lt=now - FORGOTTEN
    ).values_list("pk", flat=True)
    return running + list(forgotten)
