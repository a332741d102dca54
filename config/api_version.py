from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.version import CONCORD_VERSION


class Version(APIView):
    """The running Concord's version, for scripts that record what produced their numbers."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses=inline_serializer("Version", {"concord_version": serializers.CharField()})
    )
    def get(self, request: Request) -> Response:
        return Response({"concord_version": CONCORD_VERSION})
