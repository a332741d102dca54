from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.api import serializers as s
from annotation.api.import_jobs import ImportJobOutput, import_job_accepted, rejection_errors
from annotation.importing.issues import ImportRejected
from annotation.models import Case, ImportJob, Response, RubricVersion, System
from annotation.selectors.benchmarks import (
    CaseFilters,
    benchmark_get,
    benchmark_list_with_counts,
    cases_for_benchmark,
)
from annotation.services.benchmark_import import benchmark_import
from annotation.services.import_jobs import import_in_background
from annotation.services.responses_import import BenchmarkNotFound, responses_import
from config.parsers import CheckedFormParser, CheckedMultiPartParser
from core.permissions import Perm

# Responses and systems reveal who wrote what: never for experts.


def _rejected(exc: ImportRejected) -> ApiResponse:
    return ApiResponse(
        {
            "detail": _("The file was rejected; nothing was imported."),
            "errors": rejection_errors(exc),
            "total": exc.total,
        },
        status=status.HTTP_400_BAD_REQUEST,
    )


IMPORT_RESPONSES_DOC = {
    202: OpenApiResponse(
        ImportJobOutput,
        description="a file above the size threshold: imported by a background worker; "
        "follow the job at its url",
    ),
    400: OpenApiResponse(s.IMPORT_REFUSED_SCHEMA, description="the upload was refused"),
    503: OpenApiResponse(
        s.DETAIL_SCHEMA,
        description="the workers are not reachable, or the upload could not be stored",
    ),
}


class BenchmarkList(APIView):
    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_BENCHMARK

    @extend_schema(responses=s.BenchmarkOutput(many=True))
    def get(self, request: Request) -> ApiResponse:
        return ApiResponse(s.BenchmarkOutput(benchmark_list_with_counts(), many=True).data)


class BenchmarkDetail(APIView):
    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_BENCHMARK

    @extend_schema(responses=s.BenchmarkOutput)
    def get(self, request: Request, slug: str) -> ApiResponse:
        found = benchmark_list_with_counts(slug=slug)
        if not found:
            raise NotFound(f"No benchmark with slug {slug!r}.")
        return ApiResponse(s.BenchmarkOutput(found[0]).data)


@extend_schema(
    parameters=[
        OpenApiParameter("difficulty", str, enum=Case.Difficulty.values),
        OpenApiParameter("scenario", int),
        OpenApiParameter("ability", int),
    ]
)
class CaseList(generics.ListAPIView):
    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_BENCHMARK
    serializer_class = s.CaseOutput
    filter_backends: list = []

    def get_queryset(self):
        params = self.request.query_params

        def number(key: str) -> int | None:
            value = params.get(key, "")
            return int(value) if value.isdigit() else None

        difficulty = params.get("difficulty", "")
        return cases_for_benchmark(
            benchmark=benchmark_get(slug=self.kwargs["slug"]),
            filters=CaseFilters(
                difficulty=difficulty if difficulty in Case.Difficulty.values else "",
                scenario_id=number("scenario"),
                ability_id=number("ability"),
            ),
        )


class CaseDetail(generics.RetrieveAPIView):
    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_BENCHMARK
    serializer_class = s.CaseOutput

    def get_object(self):
        benchmark = benchmark_get(slug=self.kwargs["slug"])
        return get_object_or_404(
            cases_for_benchmark(benchmark=benchmark, filters=CaseFilters()),
            external_id=self.kwargs["external_id"],
        )


class RubricVersionDetail(generics.RetrieveAPIView):
    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_BENCHMARK
    serializer_class = s.RubricVersionDetailOutput

    def get_object(self):
        return get_object_or_404(
            RubricVersion.objects.select_related("author", "parent").prefetch_related(
                "criteria__ability__category"
            ),
            case__benchmark__slug=self.kwargs["slug"],
            case__external_id=self.kwargs["external_id"],
            number=self.kwargs["number"],
        )


class SystemList(generics.ListAPIView):
    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_SYSTEM_IDENTITY
    serializer_class = s.SystemOutput
    queryset = System.objects.order_by("name")
    pagination_class = None
    filter_backends: list = []


@extend_schema(
    parameters=[
        OpenApiParameter("system", str, description="system name"),
        OpenApiParameter("question_id", str),
    ]
)
class ResponseList(generics.ListAPIView):
    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_SYSTEM_IDENTITY
    serializer_class = s.ResponseOutput
    filter_backends: list = []

    def get_queryset(self):
        responses = Response.objects.filter(
            case__benchmark__slug=self.kwargs["slug"]
        ).select_related("system", "case__benchmark")
        if system := self.request.query_params.get("system"):
            responses = responses.filter(system__name=system)
        if question_id := self.request.query_params.get("question_id"):
            responses = responses.filter(case__external_id=question_id)
        return responses.order_by("case__position", "system__name")


class BenchmarkImport(APIView):
    """Upload a question file into the benchmark `slug` (created if new)."""

    permission_classes = [HasPermission]
    required_permission = Perm.IMPORT_DATA
    parser_classes = [CheckedMultiPartParser, CheckedFormParser]

    @extend_schema(
        request=s.ImportInput,
        responses={200: s.BenchmarkImportOutput, **IMPORT_RESPONSES_DOC},
    )
    def post(self, request: Request, slug: str) -> ApiResponse:
        data = s.ImportInput(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        if import_in_background(upload.size):
            return import_job_accepted(
                request,
                kind=ImportJob.Kind.BENCHMARK,
                chunks=upload.chunks(),
                filename=upload.name,
                benchmark_slug=slug,
                benchmark_name=data.validated_data.get("name", ""),
                difficulty=data.validated_data.get("difficulty"),
            )
        try:
            summary = benchmark_import(
                chunks=data.validated_data["file"],
                benchmark_slug=slug,
                benchmark_name=data.validated_data.get("name", ""),
                difficulty=data.validated_data.get("difficulty"),
                user=request.user,
            )
        except ImportRejected as exc:
            return _rejected(exc)
        return ApiResponse(s.BenchmarkImportOutput(summary.as_dict()).data)


class ResponsesImport(APIView):
    """Upload an answers file as the responses of one system (created if new)."""

    permission_classes = [HasPermission]
    required_permission = Perm.IMPORT_DATA
    parser_classes = [CheckedMultiPartParser, CheckedFormParser]

    @extend_schema(
        request=s.ResponsesImportInput,
        responses={
            200: s.ResponsesImportOutput,
            **IMPORT_RESPONSES_DOC,
        },
    )
    def post(self, request: Request, slug: str) -> ApiResponse:
        data = s.ResponsesImportInput(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        if import_in_background(upload.size):
            return import_job_accepted(
                request,
                kind=ImportJob.Kind.RESPONSES,
                chunks=upload.chunks(),
                filename=upload.name,
                benchmark_slug=slug,
                system_name=data.validated_data["system"],
                system_kind=data.validated_data["kind"],
            )
        try:
            summary = responses_import(
                chunks=data.validated_data["file"],
                benchmark_slug=slug,
                system_name=data.validated_data["system"],
                system_kind=data.validated_data["kind"],
            )
        except ImportRejected as exc:
            return _rejected(exc)
        except BenchmarkNotFound:
            return ApiResponse(
                {"detail": _("No benchmark with slug %(slug)s.") % {"slug": slug}},
                status=status.HTTP_404_NOT_FOUND,
            )
        return ApiResponse(s.ResponsesImportOutput(summary.as_dict()).data)
