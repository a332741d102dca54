from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard.exports.bundles.keys import signing_keys_public


class SigningKey(APIView):
    """The installation's public keys (Ed25519) that sign evidence bundles, the current one
    first: public, so anyone can check a bundle with `verify_bundle --key URL`."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    @classmethod
    def as_view(cls, **initkwargs):
        # DRF exempts its views from Django's CSRF check and leaves it to session
        # authentication, which a public view does not use: a write without the token is
        # refused by the middleware, as on every other route.
        view = super().as_view(**initkwargs)
        view.csrf_exempt = False
        return view

    @extend_schema(
        responses=inline_serializer(
            "SigningKeys",
            {
                "current": serializers.CharField(),
                "keys": serializers.ListField(child=serializers.DictField()),
            },
        )
    )
    def get(self, request: Request) -> Response:
        keys = signing_keys_public()
        current = next((k["key_id"] for k in keys if k["current"]), "")
        return Response({"current": current, "keys": keys})
