"""Rubric versions over the API: the same services, validation and conflict rule as the
editor."""

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.api.serializers import RubricVersionDetailOutput, RubricVersionOutput
from annotation.models import Case
from annotation.rubric_edit.diff import diff_rows
from annotation.rubric_edit.rows import RubricRow, assign_missing_keys
from annotation.selectors.benchmarks import benchmark_get
from annotation.selectors.rubric_overview import rubrics_export_lines
from annotation.selectors.rubric_rows import rows_of_version
from annotation.services.rubrics import RubricConflict, RubricInvalid, rubric_version_create
from core.downloads import jsonl_download
from core.permissions import Perm


class CriterionInput(serializers.Serializer):
    key = serializers.UUIDField(
        required=False, help_text="keep a criterion's key to mark it as the same criterion"
    )
    ability = serializers.CharField(help_text="ability label, e.g. 言语表达")
    weight = serializers.IntegerField(allow_null=True, min_value=-10, max_value=10)
    text = serializers.CharField(allow_blank=True, trim_whitespace=False)


class RubricVersionInput(serializers.Serializer):
    parent = serializers.IntegerField(min_value=0, help_text="the version these edits start from")
    note = serializers.CharField(allow_blank=True, max_length=500)
    criteria = CriterionInput(many=True)
    confirm_multiple_catastrophic = serializers.BooleanField(default=False)


class DiffEntryOutput(serializers.Serializer):
    change = serializers.CharField()
    old_position = serializers.IntegerField(allow_null=True)
    new_position = serializers.IntegerField(allow_null=True)
    fields = serializers.ListField(child=serializers.CharField())
    old = serializers.DictField(allow_null=True)
    new = serializers.DictField(allow_null=True)


def _case(slug: str, external_id: str) -> Case:
    return get_object_or_404(Case, benchmark__slug=slug, external_id=external_id)


def _diff_payload(entries) -> list[dict]:
    return [
        {
            "change": str(e.change),
            "old_position": e.old_position,
            "new_position": e.new_position,
            "fields": sorted(e.fields),
            "old": e.old.as_dict() if e.old else None,
            "new": e.new.as_dict() if e.new else None,
        }
        for e in entries
    ]


class RubricVersionCollection(APIView):
    permission_classes = [HasPermission]
    required_permissions = {"GET": Perm.VIEW_BENCHMARK, "POST": Perm.AUTHOR_RUBRIC}

    @extend_schema(responses=RubricVersionOutput(many=True))
    def get(self, request: Request, slug: str, external_id: str) -> ApiResponse:
        versions = (
            _case(slug, external_id)
            .rubric_versions.select_related("author", "parent")
            .order_by("number")
        )
        return ApiResponse(RubricVersionOutput(versions, many=True).data)

    @extend_schema(
        request=RubricVersionInput,
        responses={
            201: RubricVersionDetailOutput,
            400: OpenApiResponse(description="validation problems by criterion position"),
            409: OpenApiResponse(description="a newer version exists; the diff is included"),
        },
    )
    def post(self, request: Request, slug: str, external_id: str) -> ApiResponse:
        case = _case(slug, external_id)
        data = RubricVersionInput(data=request.data)
        data.is_valid(raise_exception=True)
        parent = case.rubric_versions.filter(number=data.validated_data["parent"]).first()
        rows = assign_missing_keys(
            [
                RubricRow(str(c.get("key") or ""), c["ability"], c["weight"], c["text"])
                for c in data.validated_data["criteria"]
            ],
            rows_of_version(parent),
        )
        try:
            version = rubric_version_create(
                case=case,
                rows=rows,
                parent_number=data.validated_data["parent"],
                author=request.user,
                note=data.validated_data["note"],
                source="api",
                confirm_multiple_catastrophic=data.validated_data["confirm_multiple_catastrophic"],
            )
        except RubricInvalid as exc:
            positions = {row.key: i for i, row in enumerate(rows, start=1)}
            return ApiResponse(
                {
                    "detail": "The rubric was not published.",
                    "rubric": exc.problems.rubric,
                    "criteria": {
                        str(positions[key]): messages for key, messages in exc.problems.rows.items()
                    },
                },
                status=status.HTTP_400_BAD_REQUEST,
            )
        except RubricConflict as exc:
            return ApiResponse(
                {
                    "detail": str(exc),
                    "latest": exc.latest.number,
                    "changes": _diff_payload(exc.changes),
                },
                status=status.HTTP_409_CONFLICT,
            )
        version = (
            case.rubric_versions.select_related("author", "parent")
            .prefetch_related("criteria__ability__category")
            .get(pk=version.pk)
        )
        return ApiResponse(RubricVersionDetailOutput(version).data, status=status.HTTP_201_CREATED)


class RubricVersionDiff(APIView):
    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_BENCHMARK

    @extend_schema(
        parameters=[
            OpenApiParameter("from", int, required=True),
            OpenApiParameter("to", int, required=True),
        ],
        responses=DiffEntryOutput(many=True),
    )
    def get(self, request: Request, slug: str, external_id: str) -> ApiResponse:
        case = _case(slug, external_id)
        numbers = []
        for name in ("from", "to"):
            value = request.query_params.get(name, "")
            if not value.isdigit():
                return ApiResponse(
                    {"detail": f"'{name}' must be a version number"},
                    status=status.HTTP_400_BAD_REQUEST,
                )
            numbers.append(int(value))
        old, new = (get_object_or_404(case.rubric_versions, number=n) for n in numbers)
        return ApiResponse(_diff_payload(diff_rows(rows_of_version(old), rows_of_version(new))))


class RubricExport(APIView):
    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_BENCHMARK

    @extend_schema(
        responses={(200, "application/x-ndjson"): OpenApiResponse(description="JSON Lines")}
    )
    def get(self, request: Request, slug: str) -> StreamingHttpResponse:
        benchmark = benchmark_get(slug=slug)
        return jsonl_download(
            rubrics_export_lines(benchmark=benchmark), f"{benchmark.slug}-rubrics.jsonl"
        )
