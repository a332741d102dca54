"""The expert's side of blind review over the API, with the same services and access helper
as the pages. Nothing here reads a system, a response id, another expert's votes or a judge's
verdict: items are known by their per-round code and by the assignment id."""

from django.db.models import prefetch_related_objects
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.api.serializers import TurnSerializer
from annotation.models import Assignment, Case, Criterion, Flag, Guideline, ReviewRound
from annotation.selectors.review import (
    assignment_get_for_expert,
    calibration_result,
    item_criteria,
    rounds_for_expert,
)
from annotation.services.review_assignment import AssignmentRefused, assignment_next
from annotation.services.review_votes import (
    COMMENT_MAX_LENGTH,
    NOTE_MAX_LENGTH,
    AlreadySubmitted,
    VoteInput,
    VoteRefused,
    assignment_autosave,
    assignment_submit,
    flag_raise,
)
from core.permissions import Perm

# Output ---------------------------------------------------------------------------------


class ReviewCalibrationRowOutput(serializers.Serializer):
    item = serializers.CharField(help_text="the item's code")
    position = serializers.IntegerField()
    criterion = serializers.CharField(help_text="the criterion's text")
    yours = serializers.BooleanField()
    reference = serializers.BooleanField()
    explanation = serializers.CharField()


class ReviewCalibrationOutput(serializers.Serializer):
    complete = serializers.BooleanField()
    agreement = serializers.FloatField(allow_null=True)
    passed = serializers.BooleanField()
    threshold = serializers.FloatField()
    details = ReviewCalibrationRowOutput(
        many=True, help_text="filled once every calibration item is submitted"
    )


class ExpertRoundOutput(serializers.ModelSerializer):
    benchmark = serializers.CharField(source="benchmark.name")
    done = serializers.IntegerField(source="mine_done", help_text="items you submitted")
    open = serializers.IntegerField(source="mine_open", help_text="items you have not submitted")
    calibration = ReviewCalibrationOutput(
        allow_null=True, help_text="your result, in a calibration round"
    )

    class Meta:
        model = ReviewRound
        fields = [
            "id",
            "name",
            "benchmark",
            "status",
            "deadline",
            "is_calibration",
            "done",
            "open",
            "calibration",
        ]


class ExpertCriterionOutput(serializers.ModelSerializer):
    ability = serializers.CharField(source="ability.label")
    is_penalty = serializers.BooleanField()

    class Meta:
        model = Criterion
        fields = ["id", "position", "text", "ability", "weight", "is_catastrophic", "is_penalty"]


class ReviewAnswerOutput(serializers.Serializer):
    criterion = serializers.IntegerField()
    hit = serializers.BooleanField(allow_null=True)
    note = serializers.CharField(allow_blank=True)


class ExpertAssignmentRoundOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=ReviewRound.Status.choices)


class ExpertAssignmentOutput(serializers.Serializer):
    id = serializers.IntegerField(help_text="the assignment id")
    code = serializers.CharField(help_text="the item's code in its round")
    round = ExpertAssignmentRoundOutput()
    status = serializers.ChoiceField(choices=Assignment.Status.choices)
    revision = serializers.IntegerField(help_text="send it back as base_revision on submit")
    difficulty = serializers.ChoiceField(
        choices=Case.Difficulty.choices,
        allow_null=True,
        help_text="null unless the round shows raters whether a case is hard",
    )
    dialogue = TurnSerializer(many=True)
    response_text = serializers.CharField()
    criteria = ExpertCriterionOutput(many=True)
    answers = ReviewAnswerOutput(
        many=True, help_text="the autosaved draft, else the latest submitted revision"
    )
    comment = serializers.CharField(allow_blank=True)
    guidelines = serializers.CharField(allow_null=True)


class ReviewAutosaveOutput(serializers.Serializer):
    saved = serializers.BooleanField()
    active_seconds = serializers.IntegerField()


class ReviewSubmitOutput(serializers.Serializer):
    recorded = serializers.BooleanField(
        help_text="false when base_revision was already submitted (a repeated click)"
    )
    revision = serializers.IntegerField()


class ReviewFlagOutput(serializers.ModelSerializer):
    class Meta:
        model = Flag
        fields = ["id", "reason", "note", "created"]


# Input ----------------------------------------------------------------------------------


class ReviewVoteInput(serializers.Serializer):
    criterion = serializers.IntegerField()
    hit = serializers.BooleanField(allow_null=True, help_text="null: not answered yet")
    note = serializers.CharField(allow_blank=True, default="", max_length=NOTE_MAX_LENGTH)


class ReviewAutosaveInput(serializers.Serializer):
    votes = ReviewVoteInput(many=True)
    comment = serializers.CharField(allow_blank=True, default="", max_length=COMMENT_MAX_LENGTH)
    active_seconds = serializers.IntegerField(
        min_value=0,
        default=0,
        help_text="active seconds since the last save; at most the time that has passed "
        "since it is counted",
    )


class ReviewSubmitInput(ReviewAutosaveInput):
    base_revision = serializers.IntegerField(
        min_value=0, help_text="the revision the item was loaded with"
    )


class ReviewFlagInput(serializers.Serializer):
    reason = serializers.ChoiceField(choices=Flag.Reason.choices)
    note = serializers.CharField(allow_blank=True, default="", max_length=NOTE_MAX_LENGTH)


# Helpers --------------------------------------------------------------------------------


def _refused(message: str, code: int = status.HTTP_400_BAD_REQUEST) -> ApiResponse:
    return ApiResponse({"detail": message}, status=code)


def _answers(assignment: Assignment) -> dict[str, dict]:
    """The autosaved draft if there is one, else the latest submitted revision."""
    if assignment.draft.get("votes"):
        return assignment.draft["votes"]
    latest = assignment.votes.filter(revision=assignment.revision)
    return {str(v.criterion_id): {"hit": v.hit, "note": v.note} for v in latest}


def _assignment_payload(assignment: Assignment) -> dict:
    item = assignment.item
    case = item.response.case
    criteria = item_criteria(assignment=assignment)
    answers = _answers(assignment)
    guideline = Guideline.objects.filter(benchmark_id=item.round.benchmark_id).first()
    return {
        "id": assignment.pk,
        "code": item.code,
        "round": {"id": item.round.pk, "name": item.round.name, "status": item.round.status},
        "status": assignment.status,
        "revision": assignment.revision,
        "difficulty": case.difficulty if item.round.show_difficulty else None,
        "dialogue": case.dialogue,
        "response_text": item.response.text,
        "criteria": criteria,
        "answers": [
            {
                "criterion": c.pk,
                "hit": answers.get(str(c.pk), {}).get("hit"),
                "note": answers.get(str(c.pk), {}).get("note", ""),
            }
            for c in criteria
        ],
        "comment": assignment.draft.get("comment", "")
        if assignment.draft
        else assignment.overall_comment,
        "guidelines": guideline.text if guideline else None,
    }


def _votes(assignment: Assignment, data: dict) -> list[VoteInput]:
    """The posted votes, refused when one names a criterion the item does not have."""
    known = {c.pk for c in item_criteria(assignment=assignment)}
    votes = [VoteInput(v["criterion"], v["hit"], v["note"]) for v in data["votes"]]
    if any(v.criterion_id not in known for v in votes):
        raise VoteRefused(_("Some answers are for criteria this item does not have."))
    return votes


# Views ----------------------------------------------------------------------------------


class ExpertRoundList(APIView):
    """The open and paused rounds the expert is in, with their progress."""

    permission_classes = [HasPermission]
    required_permission = Perm.ANNOTATE

    @extend_schema(responses=ExpertRoundOutput(many=True))
    def get(self, request: Request) -> ApiResponse:
        rounds = rounds_for_expert(expert=request.user)
        prefetch_related_objects(rounds, "benchmark")
        for round_ in rounds:
            round_.calibration = None
            if round_.is_calibration:
                result = calibration_result(expert=request.user, round_=round_)
                if not result.complete:
                    # As on the page: the reference answers show only at the end.
                    result.agreement, result.passed, result.details = None, False, []
                round_.calibration = result
        return ApiResponse(ExpertRoundOutput(rounds, many=True).data)


class ExpertNextItem(APIView):
    """The expert's unfinished item in the round, else a new one."""

    permission_classes = [HasPermission]
    required_permission = Perm.ANNOTATE

    @extend_schema(
        request=None,
        responses={
            200: ExpertAssignmentOutput,
            201: ExpertAssignmentOutput,
            204: OpenApiResponse(description="nothing is left for you in this round"),
            409: OpenApiResponse(
                description="the round is not open to you, or other experts are taking "
                "items at this moment (ask again); see detail"
            ),
        },
    )
    def post(self, request: Request, round_id: int) -> ApiResponse:
        round_ = get_object_or_404(ReviewRound, pk=round_id, experts=request.user)
        mine = set(
            Assignment.objects.filter(expert=request.user, item__round=round_).values_list(
                "pk", flat=True
            )
        )
        try:
            assignment = assignment_next(expert=request.user, round_=round_)
        except AssignmentRefused as exc:
            return _refused(str(exc), status.HTTP_409_CONFLICT)
        if assignment is None:
            return ApiResponse(status=status.HTTP_204_NO_CONTENT)
        assignment = assignment_get_for_expert(request.user, assignment.pk)
        return ApiResponse(
            ExpertAssignmentOutput(_assignment_payload(assignment)).data,
            status=status.HTTP_200_OK if assignment.pk in mine else status.HTTP_201_CREATED,
        )


class ExpertAssignmentDetail(APIView):
    permission_classes = [HasPermission]
    required_permission = Perm.ANNOTATE

    @extend_schema(responses=ExpertAssignmentOutput)
    def get(self, request: Request, assignment_id: int) -> ApiResponse:
        assignment = assignment_get_for_expert(request.user, assignment_id)
        return ApiResponse(ExpertAssignmentOutput(_assignment_payload(assignment)).data)


class ExpertAutosave(APIView):
    """Keep partial answers and count active time; nothing is recorded as a vote."""

    permission_classes = [HasPermission]
    required_permission = Perm.ANNOTATE

    @extend_schema(
        request=ReviewAutosaveInput,
        responses={
            200: ReviewAutosaveOutput,
            400: OpenApiResponse(description="refused; see detail"),
            409: OpenApiResponse(
                description="the item is already submitted: nothing changed (see detail)"
            ),
        },
    )
    def post(self, request: Request, assignment_id: int) -> ApiResponse:
        assignment = assignment_get_for_expert(request.user, assignment_id)
        data = ReviewAutosaveInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            saved = assignment_autosave(
                assignment=assignment,
                votes=_votes(assignment, data.validated_data),
                comment=data.validated_data["comment"],
                active_seconds=data.validated_data["active_seconds"],
            )
        except AlreadySubmitted as exc:
            return _refused(str(exc), status.HTTP_409_CONFLICT)
        except VoteRefused as exc:
            return _refused(str(exc))
        return ApiResponse(
            ReviewAutosaveOutput({"saved": True, "active_seconds": saved.active_seconds}).data
        )


class ExpertSubmit(APIView):
    """Record a complete set of answers as a new revision; repeating a submission with the
    same base_revision records nothing."""

    permission_classes = [HasPermission]
    required_permission = Perm.ANNOTATE

    @extend_schema(
        request=ReviewSubmitInput,
        responses={
            200: ReviewSubmitOutput,
            400: OpenApiResponse(description="incomplete answers or a closed round; see detail"),
        },
    )
    def post(self, request: Request, assignment_id: int) -> ApiResponse:
        assignment = assignment_get_for_expert(request.user, assignment_id)
        data = ReviewSubmitInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            submitted, recorded = assignment_submit(
                assignment=assignment,
                votes=_votes(assignment, data.validated_data),
                comment=data.validated_data["comment"],
                active_seconds=data.validated_data["active_seconds"],
                base_revision=data.validated_data["base_revision"],
            )
        except VoteRefused as exc:
            return _refused(str(exc))
        return ApiResponse(
            ReviewSubmitOutput({"recorded": recorded, "revision": submitted.revision}).data
        )


class ExpertFlag(APIView):
    """Tell the coordinator something is wrong with the item."""

    permission_classes = [HasPermission]
    required_permission = Perm.ANNOTATE

    @extend_schema(
        request=ReviewFlagInput,
        responses={201: ReviewFlagOutput, 400: OpenApiResponse(description="refused")},
    )
    def post(self, request: Request, assignment_id: int) -> ApiResponse:
        assignment = assignment_get_for_expert(request.user, assignment_id)
        data = ReviewFlagInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            flag = flag_raise(assignment=assignment, **data.validated_data)
        except VoteRefused as exc:
            return _refused(str(exc))
        return ApiResponse(ReviewFlagOutput(flag).data, status=status.HTTP_201_CREATED)
