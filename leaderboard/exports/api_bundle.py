"""A published leaderboard's evidence bundle over the API."""

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.access import HasPermission
from core.permissions import Perm
from leaderboard.exports.bundles.download import bundle_response
from leaderboard.models import LeaderboardSnapshot


class SnapshotBundle(APIView):
    """A published leaderboard's evidence bundle (zip), as the page downloads it."""

    permission_classes = [HasPermission]
    required_permission = Perm.EXPORT_DATA

    @extend_schema(responses={(200, "application/zip"): OpenApiResponse(description="zip file")})
    def get(self, request: Request, slug: str, snapshot_id: int):
        snapshot = LeaderboardSnapshot.objects.filter(pk=snapshot_id, benchmark__slug=slug).first()
        if snapshot is None:
            raise Http404
        return bundle_response(snapshot)
