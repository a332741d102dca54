"""Export jobs over the API: ask for a file to be prepared in the background, follow it, and
fetch it when ready; the same service and permission as the exports page."""

from django.http import FileResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.models import ReviewRound
from annotation.selectors.benchmarks import benchmark_get
from config.broker import BrokerUnreachable
from core.permissions import Perm
from judging.models import JudgeRun
from judging.scoring import Profile
from leaderboard.exports.files import FORMATS, KINDS
from leaderboard.exports.services import (
    ExportRequestInvalid,
    export_job_create,
)
from leaderboard.exports.views import export_job_file_response
from leaderboard.models import ExportJob

RECENT_JOBS = 20
TAGS = ["exports"]


class ExportJobInput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=list(KINDS))
    format = serializers.ChoiceField(
        choices=list(FORMATS),
        help_text=(
            "csv: safe to open in a spreadsheet (a text cell beginning with =, +, -, @, a tab "
            "or a carriage return gets a leading apostrophe); csv-raw: every text as it is; "
            "jsonl: JSON Lines, every text as it is"
        ),
    )
    round = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="id of a review round of the benchmark (tidy and votes need one)",
    )
    run = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="id of a judge run of the benchmark (tidy, verdicts and scores need one)",
    )
    profile = serializers.ChoiceField(
        choices=[p.value for p in Profile],
        default=Profile.HEARTBENCH.value,
        help_text="the scoring profile of a scores export",
    )

    def validate_round(self, value: int | None) -> ReviewRound | None:
        if value is None:
            return None
        found = ReviewRound.objects.filter(benchmark=self.context["benchmark"], pk=value).first()
        if found is None:
            raise serializers.ValidationError(
                _("No review round %(id)s in this benchmark.") % {"id": value}
            )
        return found

    def validate_run(self, value: int | None) -> JudgeRun | None:
        if value is None:
            return None
        found = JudgeRun.objects.filter(
            benchmark=self.context["benchmark"], kind=JudgeRun.Kind.JUDGE, pk=value
        ).first()
        if found is None:
            raise serializers.ValidationError(
                _("No judge run %(id)s in this benchmark.") % {"id": value}
            )
        return found


def _messages(help_text: str) -> serializers.ListField:
    return serializers.ListField(child=serializers.CharField(), required=False, help_text=help_text)


class ExportJobRefused(serializers.Serializer):
    """A 400: the messages under the name of the parameter at fault."""

    kind = _messages("unknown kind")
    format = _messages("unknown format")
    round = _messages("missing, or not a round of this benchmark")
    run = _messages("missing, or not a judge run of this benchmark")
    profile = _messages("unknown scoring profile")
    non_field_errors = _messages("the body is not an object")
    detail = serializers.CharField(required=False, help_text="the body could not be read")


class Detail(serializers.Serializer):
    detail = serializers.CharField()


class ExportJobOutput(serializers.ModelSerializer):
    benchmark = serializers.CharField(source="benchmark.slug")
    round = serializers.IntegerField(source="round_id", allow_null=True)
    run = serializers.IntegerField(source="run_id", allow_null=True)
    requested_by = serializers.CharField(
        source="requested_by.username", allow_null=True, default=None
    )
    error = serializers.SerializerMethodField(help_text="why it failed (status failed only)")
    filename = serializers.SerializerMethodField()
    download_url = serializers.SerializerMethodField(help_text="set once the file is ready")

    class Meta:
        model = ExportJob
        fields = [
            "id",
            "benchmark",
            "kind",
            "format",
            "round",
            "run",
            "profile",
            "status",
            "attempts",
            "rows",
            "size",
            "sha256",
            "error",
            "filename",
            "download_url",
            "requested_by",
            "created",
            "started",
            "finished",
        ]

    def get_error(self, job: ExportJob) -> str | None:
        return job.error_message or None

    def get_filename(self, job: ExportJob) -> str | None:
        return job.filename if job.status == ExportJob.Status.DONE else None

    def get_download_url(self, job: ExportJob) -> str | None:
        if job.status != ExportJob.Status.DONE:
            return None
        url = reverse("api-export-job-file", args=[job.benchmark.slug, job.pk])
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request else url


def _jobs(slug: str):
    return ExportJob.objects.filter(benchmark__slug=slug).select_related(
        "benchmark", "requested_by"
    )


class ExportJobCollection(APIView):
    """Recent export jobs of a benchmark, and asking for a new one."""

    permission_classes = [HasPermission]
    required_permission = Perm.EXPORT_DATA

    @extend_schema(responses=ExportJobOutput(many=True), operation_id="export_jobs_list", tags=TAGS)
    def get(self, request: Request, slug: str) -> ApiResponse:
        benchmark_get(slug=slug)  # an unknown benchmark is a 404, not an empty list
        jobs = _jobs(slug)[:RECENT_JOBS]
        return ApiResponse(ExportJobOutput(jobs, many=True, context={"request": request}).data)

    @extend_schema(
        request=ExportJobInput,
        responses={
            201: ExportJobOutput,
            400: OpenApiResponse(ExportJobRefused, description="the parameter at fault"),
            503: OpenApiResponse(Detail, description="the workers' broker is not reachable"),
        },
        operation_id="export_jobs_create",
        tags=TAGS,
    )
    def post(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        data = ExportJobInput(data=request.data, context={"benchmark": benchmark})
        data.is_valid(raise_exception=True)
        try:
            job = export_job_create(
                benchmark=benchmark,
                kind=data.validated_data["kind"],
                fmt=data.validated_data["format"],
                round_=data.validated_data.get("round"),
                run=data.validated_data.get("run"),
                profile=data.validated_data["profile"],
                user=request.user,
            )
        except ExportRequestInvalid as exc:
            return ApiResponse({exc.field: [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        except BrokerUnreachable as exc:
            return ApiResponse({"detail": str(exc)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        # With tasks run in-process the job may be finished already: show it as it is now.
        job = _jobs(slug).get(pk=job.pk)
        return ApiResponse(
            ExportJobOutput(job, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


class ExportJobItem(APIView):
    permission_classes = [HasPermission]
    required_permission = Perm.EXPORT_DATA

    @extend_schema(responses=ExportJobOutput, operation_id="export_jobs_retrieve", tags=TAGS)
    def get(self, request: Request, slug: str, job_id: int) -> ApiResponse:
        job = get_object_or_404(_jobs(slug), pk=job_id)
        return ApiResponse(ExportJobOutput(job, context={"request": request}).data)


class ExportJobFile(APIView):
    """The prepared file, once the job is ready (404 before, and after it was pruned)."""

    permission_classes = [HasPermission]
    required_permission = Perm.EXPORT_DATA

    def perform_content_negotiation(self, request: Request, force: bool = False):
        # A client asking for text/csv gets the file, not a 406: no renderer is involved.
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY, description="CSV"),
            (200, "application/x-ndjson"): OpenApiResponse(
                OpenApiTypes.BINARY, description="JSON Lines"
            ),
        },
        operation_id="export_jobs_file",
        tags=TAGS,
    )
    def get(self, request: Request, slug: str, job_id: int) -> FileResponse:
        job = get_object_or_404(_jobs(slug), pk=job_id, status=ExportJob.Status.DONE)
        return export_job_file_response(job, reader=request.user)
