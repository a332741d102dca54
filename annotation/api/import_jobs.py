"""Background imports over the API: an upload above the size threshold answers 202 with
its job, which the client follows here until it is imported, rejected or failed."""

from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.import_text import issue_text, message_text
from annotation.importing.issues import ImportRejected
from annotation.models import ImportJob
from annotation.services.import_jobs import (
    ImportUploadNotStored,
    import_job_create,
    import_job_progress,
)
from annotation.services.responses_import import BenchmarkNotFound
from config.broker import BrokerUnreachable
from core.permissions import Perm

RECENT_JOBS = 20
TAGS = ["imports"]


def rejection_errors(exc: ImportRejected) -> list[dict]:
    """A rejected file's errors as the API shows them, in the reader's language."""
    return [
        {
            "line": e.line,
            "field": e.field,
            "message": message_text(e.message),
            "text": issue_text(e),
        }
        for e in exc.errors
    ]


class ImportErrorOutput(serializers.Serializer):
    line = serializers.IntegerField(help_text="1-based; 0 when the problem is the whole file")
    field = serializers.CharField(allow_blank=True)
    message = serializers.CharField()
    text = serializers.CharField(help_text="the message with its line and field")


class ImportJobOutput(serializers.ModelSerializer):
    requested_by = serializers.CharField(
        source="requested_by.username", allow_null=True, default=None
    )
    lines_read = serializers.SerializerMethodField(help_text="lines of the file read so far")
    bytes_read = serializers.SerializerMethodField(help_text="bytes of the file read so far")
    summary = serializers.JSONField(
        allow_null=True, help_text="what was imported (status done), as a direct import answers"
    )
    errors = serializers.SerializerMethodField(help_text="why the file was rejected")
    error_total = serializers.IntegerField(help_text="how many errors the file has")
    error = serializers.SerializerMethodField(help_text="why the import failed (status failed)")
    url = serializers.SerializerMethodField(help_text="where to follow the job")

    class Meta:
        model = ImportJob
        fields = [
            "id",
            "url",
            "kind",
            "benchmark_slug",
            "system_name",
            "filename",
            "size",
            "status",
            "attempts",
            "lines_read",
            "bytes_read",
            "summary",
            "errors",
            "error_total",
            "error",
            "requested_by",
            "created",
            "started",
            "finished",
        ]

    def get_lines_read(self, job: ImportJob) -> int:
        return import_job_progress(job).lines

    def get_bytes_read(self, job: ImportJob) -> int:
        return import_job_progress(job).bytes

    @extend_schema_field(ImportErrorOutput(many=True, allow_null=True))
    def get_errors(self, job: ImportJob) -> list[dict] | None:
        rejection = job.rejection
        return rejection_errors(rejection) if rejection else None

    def get_error(self, job: ImportJob) -> str | None:
        return job.error_message or None

    def get_url(self, job: ImportJob) -> str:
        url = reverse("api-import-job-detail", args=[job.pk])
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request else url


def import_job_accepted(request: Request, **job) -> ApiResponse:
    """Queue an upload's import for a worker: 202 with the job, or why it could not be."""
    try:
        created = import_job_create(user=request.user, **job)
    except BenchmarkNotFound:
        return ApiResponse(
            {"detail": _("No benchmark with slug %(slug)s.") % {"slug": job["benchmark_slug"]}},
            status=status.HTTP_404_NOT_FOUND,
        )
    except (BrokerUnreachable, ImportUploadNotStored) as exc:
        return ApiResponse({"detail": str(exc)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
    created.refresh_from_db()  # with tasks run in-process it may be finished already
    return ApiResponse(
        ImportJobOutput(created, context={"request": request}).data,
        status=status.HTTP_202_ACCEPTED,
        headers={"Location": reverse("api-import-job-detail", args=[created.pk])},
    )


def _jobs():
    return ImportJob.objects.select_related("requested_by")


class ImportJobList(APIView):
    """The 20 newest background imports."""

    permission_classes = [HasPermission]
    required_permission = Perm.IMPORT_DATA

    @extend_schema(responses=ImportJobOutput(many=True), operation_id="import_jobs_list", tags=TAGS)
    def get(self, request: Request) -> ApiResponse:
        jobs = _jobs()[:RECENT_JOBS]
        return ApiResponse(ImportJobOutput(jobs, many=True, context={"request": request}).data)


class ImportJobItem(APIView):
    """One background import: its status, progress and outcome."""

    permission_classes = [HasPermission]
    required_permission = Perm.IMPORT_DATA

    @extend_schema(responses=ImportJobOutput, operation_id="import_jobs_retrieve", tags=TAGS)
    def get(self, request: Request, import_job_id: int) -> ApiResponse:
        job = get_object_or_404(_jobs(), pk=import_job_id)
        return ApiResponse(ImportJobOutput(job, context={"request": request}).data)
