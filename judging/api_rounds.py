"""Opening a review round drawn with more weight where a judge run is unsure (the API of
judging.services.uncertain_rounds)."""

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.api.review_coordinator_serializers import RoundCreateInput
from annotation.review_sampling import FLOOR_SHARE, FLOOR_SHARE_MAX
from annotation.services.review_rounds import RoundInvalid
from core.permissions import Perm
from judging.models import JudgeRun
from judging.services.uncertain_rounds import uncertain_round_open

BIGINT = 2**63 - 1


class UncertainRoundInput(RoundCreateInput):
    sampling = None  # always "uncertainty"
    fraction = serializers.FloatField(
        default=0.3, min_value=0.0, max_value=1.0, help_text="the expected share drawn"
    )
    judge_run = serializers.IntegerField(
        min_value=1,
        max_value=BIGINT,
        help_text="a finished judge run of the benchmark: an ensemble, or any run with a second",
    )
    second_judge_run = serializers.IntegerField(
        min_value=1,
        max_value=BIGINT,
        allow_null=True,
        default=None,
        help_text="a second judge's finished run: unsure where the two judges differ",
    )
    floor_share = serializers.FloatField(
        default=FLOOR_SHARE,
        min_value=0.0,
        max_value=float(FLOOR_SHARE_MAX),
        help_text="the floor added to every response's uncertainty, as a share of the mean",
    )


class UncertainRoundOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    sampling = serializers.CharField()
    items = serializers.IntegerField()
    detail = serializers.CharField(help_text="the round's address in the API")


class UncertainRoundCreate(APIView):
    permission_classes = [HasPermission]
    required_permission = Perm.MANAGE_REVIEW

    @extend_schema(
        request=UncertainRoundInput,
        responses={
            201: UncertainRoundOutput,
            400: OpenApiResponse(description="the round could not be opened; see detail"),
        },
    )
    def post(self, request: Request) -> ApiResponse:
        data = UncertainRoundInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        systems = list(dict.fromkeys(fields.pop("systems")))
        experts = list(dict.fromkeys(fields.pop("experts")))
        run = get_object_or_404(JudgeRun, pk=fields.pop("judge_run"))
        second_id = fields.pop("second_judge_run")
        second = get_object_or_404(JudgeRun, pk=second_id) if second_id is not None else None
        try:
            round_ = uncertain_round_open(
                **fields,
                run=run,
                second=second,
                systems=systems,
                experts=experts,
                user=request.user,
            )
        except RoundInvalid as exc:
            return ApiResponse({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        body = {
            "id": round_.pk,
            "name": round_.name,
            "sampling": round_.sampling,
            "items": round_.items.count(),
            "detail": reverse("api-review-manage-round", args=[round_.pk]),
        }
        return ApiResponse(UncertainRoundOutput(body).data, status=status.HTTP_201_CREATED)
