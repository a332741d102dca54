"""Export jobs: an export file written in the background, then offered for download.

The worker streams the same bytes as the download view into a temporary file next to the
final one and renames it into place only when it is complete, so a reader never sees half a
file. A failure to write (disk full, permission denied, ...) marks the job failed with its
cause and removes the partial file.
"""

import errno
import hashlib
import logging
import os
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import Benchmark, ReviewRound
from config.broker import broker_check
from core.jobs import Attempt, Lifecycle
from judging.models import JudgeRun
from judging.scoring import Profile
from leaderboard.exports.files import FORMATS, KINDS, export_filename, export_lines, is_csv
from leaderboard.models import ExportJob

logger = logging.getLogger(__name__)

# How long an attempt holds its job without news; it renews the lease while it writes.
LEASE = timedelta(minutes=5)


class ExportRequestInvalid(ValueError):
    """The export asked for does not exist or lacks a round or run it needs; `field` names
    the request's parameter at fault."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Written:
    rows: int
    size: int
    sha256: str


def export_root() -> Path:
    return Path(settings.EXPORT_ROOT)


def export_job_create(
    *,
    benchmark: Benchmark,
    kind: str,
    fmt: str,
    round_: ReviewRound | None,
    run: JudgeRun | None,
    profile: str,
    user,
) -> ExportJob:
    """Record the job and queue it once the transaction commits. Raises ExportRequestInvalid,
    or BrokerUnreachable (and records nothing) when no worker could be told."""
    if kind not in KINDS:
        raise ExportRequestInvalid(
            _("Unknown export %(kind)s; choose one of %(kinds)s.")
            % {"kind": kind, "kinds": ", ".join(KINDS)},
            field="kind",
        )
    if fmt not in FORMATS:
        raise ExportRequestInvalid(
            _("Unknown format %(fmt)s; choose one of %(formats)s.")
            % {"fmt": fmt, "formats": ", ".join(FORMATS)},
            field="format",
        )
    if profile not in {p.value for p in Profile}:
        raise ExportRequestInvalid(
            _("Unknown scoring profile %(profile)s.") % {"profile": profile}, field="profile"
        )
    spec = KINDS[kind]
    if spec.needs_round and round_ is None:
        raise ExportRequestInvalid(
            _("This export needs a review round of the benchmark."), field="round"
        )
    if spec.needs_run and run is None:
        raise ExportRequestInvalid(
            _("This export needs a judge run of the benchmark."), field="run"
        )
    broker_check()
    return EXPORTS.queue(
        benchmark=benchmark,
        kind=kind,
        format=fmt,
        round=round_ if spec.needs_round else None,
        run=run if spec.needs_run else None,
        profile=profile if kind == "scores" else "",
        requested_by=user,
    )


def _send(job_id: int) -> None:
    from leaderboard.tasks import export_job_task

    export_job_task.delay(job_id)


EXPORTS = Lifecycle(
    model=ExportJob,
    send=_send,
    lease=LEASE,
    related=("benchmark", "round", "run"),
)


def export_job_file(job: ExportJob) -> Path:
    """The absolute path of a finished job's file; refuses a path that leaves EXPORT_ROOT."""
    root = export_root().resolve()
    path = (root / job.path).resolve()
    if not job.path or not path.is_relative_to(root):
        raise FileNotFoundError(job.path)
    return path


def _relative_path(job: ExportJob) -> Path:
    name = export_filename(
        slug=job.benchmark.slug,
        kind=job.kind,
        fmt=job.format,
        round_id=job.round_id,
        run_id=job.run_id,
        profile=job.profile,
    )
    return Path(job.benchmark.slug) / f"{job.pk}-{name}"


def _write(attempt: Attempt, final: Path) -> Written:
    job = attempt.job
    final.parent.mkdir(parents=True, exist_ok=True)
    # Leftovers of attempts presumed dead: their workers lost the lease and stop at the next
    # renewal (or when their rename finds no file).
    for stale in final.parent.glob(f".{final.name}.*.part"):
        stale.unlink(missing_ok=True)
    temp = final.with_name(f".{final.name}.{attempt.token}.part")
    lines = export_lines(
        kind=job.kind,
        fmt=job.format,
        round_=job.round,
        run=job.run,
        profile=Profile(job.profile or Profile.HEARTBENCH.value),
    )
    digest, size, count = hashlib.sha256(), 0, 0
    try:
        # "x": never write through a file (or link) that is already there.
        with open(temp, "xb") as out:
            for line in lines:
                out.write(line)
                digest.update(line)
                size += len(line)
                count += 1
                if count % 1000 == 0:
                    attempt.heartbeat()
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, final)
    except BaseException:
        try:
            temp.unlink(missing_ok=True)
        except OSError:
            logger.warning("could not remove the partial export %s", temp)
        raise
    rows = count - 1 if is_csv(job.format) else count  # a CSV file's first line is the header
    return Written(rows=rows, size=size, sha256=digest.hexdigest())


def _failed_path(exc: OSError, final: Path) -> str:
    """What to name in the message: the folder when it refused the new file (the temporary
    name would only puzzle), the export file when writing it failed, else what the OS named."""
    name = str(exc.filename) if exc.filename else ""
    if not name or name.endswith(".part"):
        denied = exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
        return str(final.parent if denied else final)
    return name


def _export(attempt: Attempt) -> str:
    job = attempt.job
    relative = _relative_path(job)
    final = export_root() / relative
    try:
        written = _write(attempt, final)
    except OSError as exc:
        return attempt.fail(exc, error_path=_failed_path(exc, final)[:500])
    return attempt.finish(
        ExportJob.Status.DONE,
        path=relative.as_posix(),
        rows=written.rows,
        size=written.size,
        sha256=written.sha256,
    )


def export_job_run(*, job_id: int) -> str:
    """Write the job's file. Idempotent: a finished or failed job, or one another worker
    holds, is left alone; a job whose worker died (its lease ran out) is written again."""
    return EXPORTS.run(job_id, _export)


def export_jobs_revive() -> list[int]:
    """Ids of jobs to queue again: running ones whose worker stopped renewing its lease,
    and queued ones whose message was lost."""
    return EXPORTS.revive()


@dataclass(frozen=True)
class Pruned:
    jobs: int
    bytes: int
    # (job id, why its file could not be removed): those jobs keep their file and link.
    errors: tuple[tuple[int, str], ...]


def export_jobs_prune(*, older_than: timedelta) -> Pruned:
    """Delete the files of jobs finished more than `older_than` ago and mark the jobs
    expired, so no page offers a link to a file that is gone. A file that cannot be deleted
    leaves its job as it was (and is reported), so the record never lies about the disk."""
    cutoff = timezone.now() - older_than
    candidates = ExportJob.objects.filter(status=ExportJob.Status.DONE, finished__lt=cutoff)
    jobs, freed, errors = 0, 0, []
    for job_id in candidates.values_list("pk", flat=True).iterator():
        try:
            with transaction.atomic():
                # Locked and checked again: a concurrent prune may have taken it already.
                job = (
                    ExportJob.objects.select_for_update()
                    .filter(pk=job_id, status=ExportJob.Status.DONE)
                    .first()
                )
                if job is None:
                    continue
                ExportJob.objects.filter(pk=job.pk).update(status=ExportJob.Status.EXPIRED, path="")
                freed += _remove(job)
        except OSError as exc:
            errors.append((job_id, f"{exc.filename or job_id}: {exc.strerror or exc}"))
            continue
        jobs += 1
    return Pruned(jobs=jobs, bytes=freed, errors=tuple(errors))


def _remove(job: ExportJob) -> int:
    """Delete a job's file; the bytes freed (0 when it was already gone)."""
    try:
        path = export_job_file(job)
    except FileNotFoundError:
        return 0  # a path outside EXPORT_ROOT is never touched
    try:
        size = path.stat().st_size
        path.unlink()
    except FileNotFoundError:
        return 0
    return size
