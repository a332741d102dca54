"""Background imports: an upload above settings.IMPORT_BACKGROUND_BYTES is stored under
settings.IMPORT_ROOT and imported by a Celery worker, so no request waits for it.

The worker runs the same importer as a direct upload, in one transaction that also records
the job as done: a file is imported whole or not at all, and a job is "done" exactly when
its import is in the database. While it runs, the worker writes how far it has read into a
small file beside the upload (the transaction hides everything else from other readers).
"""

import json
import logging
import os
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.importing.issues import ImportIssue, ImportRejected, Text, shown
from annotation.models import Benchmark, ImportJob
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import BenchmarkNotFound, responses_import
from config.broker import broker_check
from core.jobs import Attempt, LeaseLost, Lifecycle

logger = logging.getLogger(__name__)

# How long an attempt holds its job. The import is one transaction, so the lease cannot be
# renewed where others would see it; a running job is presumed dead when its lease ran out
# and its progress file has not moved for STALE.
LEASE = timedelta(minutes=10)
STALE = timedelta(minutes=2)
PROGRESS_EVERY_LINES = 1000


class ImportUploadNotStored(Exception):
    """The upload could not be written to the import folder; nothing was recorded."""


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
        return IMPORTS.queue(
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
    except BaseException:
        (root / name).unlink(missing_ok=True)
        raise


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


def _send(job_id: int) -> None:
    from annotation.tasks import import_job_task

    import_job_task.delay(job_id)


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


def _still_reading(job: ImportJob, now: datetime) -> bool:
    try:
        moved = _progress_path(job).stat().st_mtime
    except OSError:
        return False
    return now.timestamp() - moved <= STALE.total_seconds()


def _remove_files(job: ImportJob) -> None:
    for path in (import_root() / job.upload, _progress_path(job)):
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            logger.warning("could not remove %s: %s", path, exc)


IMPORTS = Lifecycle(
    model=ImportJob,
    send=_send,
    lease=LEASE,
    still_alive=_still_reading,
    # The upload is no longer needed once the job has an outcome.
    released={"upload": ""},
    release=_remove_files,
    related=("requested_by",),
)


class _CountingLines:
    """The upload's lines, counted as the importer reads them, with the count written
    every PROGRESS_EVERY_LINES lines for the pages to show."""

    def __init__(self, progress: Path) -> None:
        self.progress = progress
        self.lines = 0
        self.bytes = 0

    def of(self, handle) -> Iterator[bytes]:
        for line in handle:
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

    def read(self) -> dict:
        return {"lines_read": self.lines, "bytes_read": self.bytes}


def _claim(job_id: int, token: str) -> Attempt | None:
    return IMPORTS.claim(job_id, token)


def _run_import(job: ImportJob, lines: Iterator[bytes]):
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


def _import(attempt: Attempt) -> str:
    """The attempt's import, in one transaction with its outcome: a job is done exactly
    when its import is in the database (an attempt that lost the job undoes its import)."""
    job = attempt.job
    path = import_root() / job.upload
    lines = _CountingLines(_progress_path(job))
    try:
        with path.open("rb") as handle, transaction.atomic():
            summary = _run_import(job, lines.of(handle))
            return attempt.finish(ImportJob.Status.DONE, summary=summary.as_dict(), **lines.read())
    except LeaseLost:
        raise
    except ImportRejected as exc:
        errors = [issue.as_dict() for issue in exc.errors]
        return attempt.finish(
            ImportJob.Status.REJECTED, errors=errors, error_total=exc.total, **lines.read()
        )
    except BenchmarkNotFound:
        missing = gettext_noop("no benchmark with slug %(slug)s")
        issue = ImportIssue(0, Text(missing, {"slug": shown(job.benchmark_slug)}))
        return attempt.finish(
            ImportJob.Status.REJECTED, errors=[issue.as_dict()], error_total=1, **lines.read()
        )
    except OSError as exc:
        detail = f"{exc.strerror or exc}: {exc.filename or path}"
        return attempt.fail(exc, detail=detail, **lines.read())
    except Exception as exc:
        return attempt.fail(exc, **lines.read())


def import_job_run(*, job_id: int) -> str:
    """Import the job's upload. Idempotent: a finished job, or one another worker holds,
    is left alone; a job whose worker died is imported again (its transaction was rolled
    back with the worker's connection)."""
    return IMPORTS.run(job_id, _import)


def import_jobs_revive() -> list[int]:
    """Ids of jobs to queue again: running ones whose worker died, and queued ones whose
    message was lost."""
    return IMPORTS.revive()
