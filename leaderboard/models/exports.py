import errno

from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.models import Benchmark, ReviewRound
from core.jobs import BROKER, INTERRUPTED, BackgroundJob
from judging.models import JudgeRun


class ExportJob(BackgroundJob):
    """One export file prepared in the background. Files live under settings.EXPORT_ROOT;
    `path` is relative to it and set only once the complete file is in place."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("ready")
        FAILED = "failed", _("failed")
        # The file was deleted for its age (exports_prune); the record stays as history.
        EXPIRED = "expired", _("file removed")

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=12)
    format = models.CharField(max_length=8)
    round = models.ForeignKey(
        ReviewRound, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    run = models.ForeignKey(
        JudgeRun, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    profile = models.CharField(max_length=20, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    error_code = models.CharField(max_length=16, blank=True)
    # The file or folder a failure concerns.
    error_path = models.CharField(max_length=500, blank=True)
    path = models.CharField(max_length=300, blank=True)
    rows = models.PositiveBigIntegerField(null=True, blank=True)
    size = models.PositiveBigIntegerField(null=True, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)

    class Meta(BackgroundJob.Meta):
        indexes = [models.Index(fields=["benchmark", "-created"])]

    def __str__(self) -> str:
        return f"export {self.pk} ({self.kind}.{self.format}): {self.status}"

    @property
    def filename(self) -> str:
        return self.path.rsplit("/", 1)[-1].split("-", 1)[-1] if self.path else ""

    @property
    def error_message(self) -> str:
        if self.status != self.Status.FAILED:
            return ""
        return failure_message(self.error_code, self.error_path, self.error_detail)


def failure_message(code: str, path: str, detail: str) -> str:
    """The cause of a failed export in the reader's language, naming the file or folder."""
    values = {"path": path, "detail": detail}
    if code == errno.errorcode[errno.ENOSPC] or code == errno.errorcode[errno.EDQUOT]:
        return gettext("The disk is full (no space left on device) while writing %(path)s.") % (
            values
        )
    if code in {errno.errorcode[e] for e in (errno.EACCES, errno.EPERM, errno.EROFS)}:
        return (
            gettext("Permission denied: the worker may not write to %(path)s (%(detail)s).")
            % values
        )
    if code == errno.errorcode[errno.ENOTDIR]:
        return (
            gettext(
                "The export folder %(path)s cannot be created: part of it is a file, not a folder."
            )
            % values
        )
    if code == BROKER:
        return (
            gettext(
                "The background workers are not reachable (%(detail)s); the file was not prepared."
            )
            % values
        )
    if code == INTERRUPTED:
        return (
            gettext(
                "The export was interrupted: its worker stopped before finishing, %(detail)s "
                "attempts in all; the file was not prepared."
            )
            % values
        )
    if path:
        return gettext("Writing %(path)s failed: %(detail)s") % values
    return gettext("The export failed: %(detail)s") % values
