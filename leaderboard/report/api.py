"""The agreement report over the API, from the same evidence as the page and the
agreement_report command."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from leaderboard.evidence.selectors.pick import (
    EvidenceNotFound,
    agreement_evidence,
    evidence_header,
)
from leaderboard.report.wording_reasons import with_reason_texts


class AgreementReport(APIView):
    """The agreement report of a judge run against a review round's majority."""

    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_CONSENSUS

    @extend_schema(
        parameters=[
            OpenApiParameter("round", str, description="id or name; default: the newest"),
            OpenApiParameter(
                "run", str, description="id or 'latest' (the newest run covering the round)"
            ),
            OpenApiParameter(
                "judge", str, description="a judge's name: its current version's finished runs"
            ),
            OpenApiParameter(
                "min_raters",
                int,
                description="leave out units with fewer votes (default: the round's raters "
                "per item)",
            ),
        ],
        responses={200: OpenApiResponse(description="the report (see the README)")},
    )
    def get(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        min_raters = request.query_params.get("min_raters", "")
        if min_raters and not (min_raters.isdigit() and 1 <= int(min_raters) <= 50):
            return ApiResponse(
                {"min_raters": _("A whole number from 1 to 50.")},
                status=status.HTTP_400_BAD_REQUEST,
            )
        try:
            evidence = agreement_evidence(
                benchmark=benchmark,
                round_ref=request.query_params.get("round", ""),
                run_ref=request.query_params.get("run", ""),
                judge=request.query_params.get("judge", ""),
                min_raters=int(min_raters) if min_raters else None,
            )
        except EvidenceNotFound as exc:
            return ApiResponse({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        if evidence.report is None:
            return ApiResponse({"detail": evidence.problem}, status=status.HTTP_404_NOT_FOUND)
        return ApiResponse(
            with_reason_texts({**evidence_header(evidence), **evidence.report.as_json()})
        )
