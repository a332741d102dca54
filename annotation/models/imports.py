import errno

from django.db import models
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from annotation.importing.issues import ImportIssue, ImportRejected
from core.jobs import BROKER, INTERRUPTED, BackgroundJob


class ImportJob(BackgroundJob):
    """An uploaded file imported by a background worker (files above the size threshold).

    The upload is kept under settings.IMPORT_ROOT until the job finishes; the import itself
    is all-or-nothing, and the job records the outcome: the summary, the file's errors, or
    why it could not be read."""

    class Kind(models.TextChoices):
        BENCHMARK = "benchmark", _("benchmark questions")
        RESPONSES = "responses", _("responses of a system")

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", pgettext_lazy("import job status", "importing")
        DONE = "done", pgettext_lazy("import job status", "imported")
        # The file has errors: nothing was imported, the errors are listed.
        REJECTED = "rejected", pgettext_lazy("import job status", "rejected")
        # Something other than the file went wrong (no worker, unreadable upload, ...).
        FAILED = "failed", _("failed")

    kind = models.CharField(max_length=10, choices=Kind.choices)
    benchmark_slug = models.CharField(max_length=100)
    benchmark_name = models.CharField(max_length=200, blank=True)
    system_name = models.CharField(max_length=200, blank=True)
    system_kind = models.CharField(max_length=10, blank=True)
    # A question file's difficulty for every case, when its rows carry none (split files).
    difficulty = models.CharField(max_length=10, blank=True)
    filename = models.CharField(max_length=200, blank=True)
    # The stored upload, relative to IMPORT_ROOT; emptied once the job has finished.
    upload = models.CharField(max_length=100, blank=True)
    size = models.PositiveBigIntegerField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    lines_read = models.PositiveBigIntegerField(default=0)
    bytes_read = models.PositiveBigIntegerField(default=0)
    summary = models.JSONField(null=True, blank=True)
    # A rejected file's first errors ({line, field, msgid, params}) and how many there were.
    errors = models.JSONField(default=list, blank=True)
    error_total = models.PositiveIntegerField(default=0)

    class Meta(BackgroundJob.Meta):
        verbose_name = _("import job")
        verbose_name_plural = _("import jobs")

    def __str__(self) -> str:
        return f"import {self.pk} ({self.kind} {self.filename}): {self.status}"

    @property
    def rejection(self) -> ImportRejected | None:
        if self.status != self.Status.REJECTED:
            return None
        return ImportRejected([ImportIssue.from_dict(e) for e in self.errors], self.error_total)

    @property
    def error_message(self) -> str:
        if self.status != self.Status.FAILED:
            return ""
        return failure_message(self.error_code, self.error_detail)


def failure_message(code: str, detail: str) -> str:
    """Why a background import could not run, in the reader's language."""
    values = {"detail": detail}
    if code == BROKER:
        return (
            gettext(
                "The background workers are not reachable (%(detail)s); nothing was imported. "
                "Upload the file again once they are running."
            )
            % values
        )
    if code == INTERRUPTED:
        return (
            gettext(
                "The import was interrupted: its worker stopped before finishing, %(detail)s "
                "attempts in all; nothing was imported."
            )
            % values
        )
    if code == errno.errorcode[errno.ENOENT]:
        return (
            gettext(
                "The uploaded file is no longer on the server (%(detail)s); nothing was "
                "imported. Every worker must be able to read the import folder."
            )
            % values
        )
    if code in {errno.errorcode[e] for e in (errno.EACCES, errno.EPERM)}:
        return (
            gettext("The worker may not read the uploaded file (%(detail)s); nothing was imported.")
            % values
        )
    return gettext("The import failed (%(detail)s); nothing was imported.") % values
