"""Judges compared through the API: two runs, as the compare_runs command does, and every
judge version on a round, as the judge_selection command does."""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from leaderboard.report.wording_reasons import with_reason_texts
from leaderboard.selection.selectors.compare import CompareInvalid, runs_compare
from leaderboard.selection.selectors.versions import (
    SelectionInvalid,
    judge_selection,
    selection_round,
)


class CompareRuns(APIView):
    """Two judge runs on the units both judged: agreement with each other (overall and per
    ability, Cohen's kappa, McNemar's exact test) and, with a round, each run's agreement
    with the experts' majority and the paired difference with its cluster-bootstrap
    interval."""

    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_CONSENSUS

    @extend_schema(
        parameters=[
            OpenApiParameter("run", int, many=True, description="the two runs' ids, in order"),
            OpenApiParameter("round", str, description="a review round's name (optional)"),
        ],
        responses={
            200: OpenApiResponse(description="the comparison (see the README)"),
            400: OpenApiResponse(description="the runs or the round are not found"),
        },
    )
    def get(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        given = request.query_params.getlist("run")
        try:
            if not all(value.isdigit() for value in given):
                raise CompareInvalid(_runs_by_id())
            result = runs_compare(
                benchmark=benchmark,
                run_ids=[int(value) for value in given],
                round_name=request.query_params.get("round", ""),
            )
        except CompareInvalid as exc:
            return ApiResponse({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return ApiResponse(with_reason_texts(result))


def _runs_by_id() -> str:
    from django.utils.translation import gettext

    return gettext("Give runs by their ids.")


class JudgeSelection(APIView):
    """Every judge version whose finished runs cover a review round, best first, with its
    agreement, kappa, paired difference to the best, cost per 1,000 responses, median
    latency and gate; and the cheapest version that passes (as the judge_selection command
    and the judge selection page give them)."""

    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_CONSENSUS

    @extend_schema(
        parameters=[OpenApiParameter("round", str, description="a review round's name or id")],
        responses={
            200: OpenApiResponse(description="the comparison (see the README)"),
            400: OpenApiResponse(description="the round is not found"),
        },
    )
    def get(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        try:
            round_ = selection_round(ref=request.query_params.get("round", ""), benchmark=benchmark)
        except SelectionInvalid as exc:
            return ApiResponse({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return ApiResponse(with_reason_texts(judge_selection(round_=round_)))
