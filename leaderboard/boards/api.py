"""A judge version's leaderboard over the API (unpublished), as the leaderboard command
prints it."""

from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from judging.scoring import Profile
from leaderboard.boards.selectors.runs import BoardNotFound, board_runs, judge_version_header
from leaderboard.boards.services import stored_leaderboard_rows
from leaderboard.drift.selectors import version_drift
from leaderboard.report.wording_reasons import with_reason_texts

PROFILES = [p.value for p in Profile]


def _board_from(request: Request, benchmark, data):
    runs_given = data.getlist("run") if hasattr(data, "getlist") else data.get("runs") or []
    if isinstance(runs_given, (str, int)):
        runs_given = [runs_given]
    if not all(str(value).isdigit() for value in runs_given):
        raise serializers.ValidationError({"runs": [_("Give runs by their ids.")]})
    return board_runs(
        benchmark=benchmark,
        judge=str(data.get("judge", "") or ""),
        runs=[int(value) for value in runs_given],
    )


class Leaderboard(APIView):
    """Scores of a judge version's systems (unpublished), as in the leaderboard command."""

    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_BENCHMARK

    @extend_schema(
        parameters=[
            OpenApiParameter("judge", str, description="configuration name"),
            OpenApiParameter("run", int, many=True, description="run ids (repeatable)"),
            OpenApiParameter("profile", str, enum=PROFILES),
        ],
        responses={200: OpenApiResponse(description="rows as in the leaderboard command")},
    )
    def get(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        profile = request.query_params.get("profile", Profile.HEARTBENCH)
        if profile not in PROFILES:
            return ApiResponse(
                {"profile": [_("Use heartbench or heartbench-code.")]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        try:
            board = _board_from(request, benchmark, request.query_params)
        except BoardNotFound as exc:
            raise Http404(str(exc)) from exc
        return ApiResponse(
            {
                "benchmark": benchmark.slug,
                "runs": board.run_ids,
                "judge_version": judge_version_header(board.judge_version)
                if board.judge_version
                else None,
                "profile": profile,
                "systems": with_reason_texts(stored_leaderboard_rows(board=board, profile=profile)),
                # Whether the drift test flagged the judge version on the anchors.
                "drift": with_reason_texts(
                    version_drift(benchmark=benchmark, version=board.judge_version).as_dict()
                )
                if board.judge_version
                else None,
            }
        )
