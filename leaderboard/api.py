from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.models import ReviewRound
from judging.models import JudgeRun
from judging.scoring import Profile
from judging.selectors.stored_scores import stored_leaderboard_rows
from leaderboard.agreement import GateRule, agreement_report
from leaderboard.selectors.agreement import agreement_units
from leaderboard.services.gate import gate_policy


class AgreementReport(APIView):
    """The agreement report of a judge run against a review round's majority."""

    permission_classes = [HasPermission]
    required_permission = "annotation.view_consensus"

    @extend_schema(
        parameters=[
            OpenApiParameter("round", int, required=True),
            OpenApiParameter("run", int, required=True),
        ],
        responses={200: OpenApiResponse(description="the report (see the README)")},
    )
    def get(self, request: Request, slug: str) -> ApiResponse:
        ids = [request.query_params.get(name, "") for name in ("round", "run")]
        if not all(value.isdigit() for value in ids):
            return ApiResponse(
                {"detail": "give 'round' and 'run' as ids"}, status=status.HTTP_400_BAD_REQUEST
            )
        round_ = get_object_or_404(ReviewRound, pk=int(ids[0]), benchmark__slug=slug)
        run = get_object_or_404(JudgeRun, pk=int(ids[1]), benchmark__slug=slug)
        policy = gate_policy(benchmark=round_.benchmark)
        report = agreement_report(
            agreement_units(round_=round_, run=run),
            threshold=policy.threshold,
            rule=GateRule(policy.rule),
        )
        return ApiResponse({"round": round_.name, "judge_run": run.pk, **report})


class Leaderboard(APIView):
    """Scores of a judge run's systems (unpublished: any finished run)."""

    permission_classes = [HasPermission]
    required_permission = "annotation.view_benchmark"

    @extend_schema(
        parameters=[
            OpenApiParameter("run", int, required=True),
            OpenApiParameter("profile", str, enum=[p.value for p in Profile]),
        ],
        responses={200: OpenApiResponse(description="rows as in the leaderboard command")},
    )
    def get(self, request: Request, slug: str) -> ApiResponse:
        run_id = request.query_params.get("run", "")
        profile = request.query_params.get("profile", Profile.HEARTBENCH)
        if not run_id.isdigit() or profile not in {p.value for p in Profile}:
            return ApiResponse(
                {"detail": "give 'run' as an id and 'profile' as heartbench or heartbench-code"},
                status=status.HTTP_400_BAD_REQUEST,
            )
        run = get_object_or_404(JudgeRun, pk=int(run_id), benchmark__slug=slug)
        return ApiResponse(
            {
                "run": run.pk,
                "profile": profile,
                "systems": stored_leaderboard_rows(run=run, profile=profile),
            }
        )
