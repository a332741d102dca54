"""The judge panel over the API: the command's JSON, with each reason also in words."""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from leaderboard.panel.selectors import PanelInputError
from leaderboard.panel.views import panel_query
from leaderboard.report.wording_reasons import with_reason_texts


class JudgePanel(APIView):
    """Can a judge replace an expert? The Alternative Annotator Test per cost margin and
    the macro F1 of the judge and of each expert, for a review round and a judge's current
    version (as `judge_panel --json`)."""

    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_CONSENSUS

    @extend_schema(
        parameters=[
            OpenApiParameter("judge", str, description="the judge configuration's name"),
            OpenApiParameter("round", str, description="id or name; default: the newest"),
            OpenApiParameter(
                "epsilon", float, many=True, description="cost margins; default 0.1, 0.15, 0.2"
            ),
        ],
        responses={
            200: OpenApiResponse(description="as `judge_panel --json`"),
            400: OpenApiResponse(description="a missing judge, an unknown round, a bad margin"),
        },
    )
    def get(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        try:
            payload = panel_query(benchmark=benchmark, params=request.query_params)
        except PanelInputError as exc:
            return ApiResponse({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return ApiResponse(with_reason_texts(payload))
