"""The corrected board over the API: the command's JSON, with each reason also in words."""

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from judging.scoring import Profile
from leaderboard.boards.selectors.runs import BoardNotFound
from leaderboard.corrected.board import RoundNotFound, corrected_board
from leaderboard.corrected.views import BadQuery, board_query
from leaderboard.corrected.wording import with_reason_words


class CorrectedLeaderboard(APIView):
    """A judge's leaderboard corrected by a review round's expert votes (PPI++)."""

    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_CONSENSUS

    @extend_schema(
        parameters=[
            OpenApiParameter("judge", str, description="configuration name"),
            OpenApiParameter("run", int, many=True, description="run ids (repeatable)"),
            OpenApiParameter("profile", str, enum=[p.value for p in Profile]),
            OpenApiParameter("round", str, description="id or name; default: the newest"),
        ],
        responses={
            200: OpenApiResponse(description="as `leaderboard --corrected-by ROUND --json`")
        },
    )
    def get(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        try:
            board, round_, profile = board_query(benchmark=benchmark, params=request.query_params)
        except BoardNotFound as exc:
            raise Http404(str(exc)) from exc
        except (BadQuery, RoundNotFound) as exc:
            return ApiResponse({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        payload = corrected_board(board=board, round_=round_, profile=profile)
        return ApiResponse(with_reason_words(payload))
