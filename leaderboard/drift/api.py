"""A judge version's drift on the benchmark's anchors over the API, as its drift page
shows it."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from judging.models import JudgeVersion
from leaderboard.drift.selectors import version_drift
from leaderboard.report.wording_reasons import with_reason_texts


class JudgeDrift(APIView):
    """The drift test of a judge version: its runs on the anchors, the e-value, the flag,
    and the anchors set aside because their rubric changed (with the reason in words)."""

    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_BENCHMARK

    @extend_schema(responses={200: OpenApiResponse(description="the drift test, as on its page")})
    def get(self, request: Request, slug: str, version_id: int) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        version = get_object_or_404(JudgeVersion.objects.select_related("config"), pk=version_id)
        drift = version_drift(benchmark=benchmark, version=version)
        return ApiResponse({"benchmark": benchmark.slug, **with_reason_texts(drift.as_dict())})
