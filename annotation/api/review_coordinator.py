"""The coordinator's side of review over the API: rounds, reassignment, guidelines,
reference answers, consensus and adjudication, with the same services as the pages."""

from django.contrib.auth import get_user_model
from django.db.models import Count, Prefetch
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.api.review_coordinator_serializers import (
    AdjudicationInput,
    AdjudicationOutput,
    ConsensusItemOutput,
    GuidelineInput,
    GuidelineOutput,
    ManagedAssignmentOutput,
    ManagedRoundDetailOutput,
    ManagedRoundOutput,
    ReassignInput,
    ReferenceItemOutput,
    ReferencesInput,
    RoundCreateInput,
    RoundExtendInput,
    RoundExtendOutput,
    RoundStatusInput,
    RoundWorkOutput,
)
from annotation.consensus import NO_VOTES
from annotation.models import (
    Assignment,
    Benchmark,
    Criterion,
    Guideline,
    ReviewItem,
    ReviewRound,
    System,
    VotesSeen,
)
from annotation.selectors.review import item_get_for_adjudicator, round_consensus
from annotation.selectors.round_work import round_work_in_progress
from annotation.services.review_adjudication import Decision, item_adjudicate
from annotation.services.review_assignment import AssignmentRefused, assignment_reassign
from annotation.services.review_rounds import (
    RoundInvalid,
    guideline_save,
    round_extend,
    round_open,
    round_set_status,
)
from annotation.services.review_votes import VoteRefused, reference_answers_set
from annotation.services.votes_seen import item_votes_seen_record, round_votes_seen_record
from core.permissions import Perm

User = get_user_model()


def _detail(message: str, code: int = status.HTTP_400_BAD_REQUEST) -> ApiResponse:
    return ApiResponse({"detail": message}, status=code)


def _rounds():
    return (
        ReviewRound.objects.select_related("benchmark", "created_by")
        .prefetch_related(
            Prefetch("systems", queryset=System.objects.order_by("name")),
            Prefetch("experts", queryset=User.objects.order_by("username")),
        )
        .annotate(item_count=Count("items"))
        .order_by("-created")
    )


def _round_detail(round_id: int) -> ReviewRound:
    items = (
        ReviewItem.objects.select_related("response__case", "response__system")
        .prefetch_related(
            Prefetch(
                "assignments",
                queryset=Assignment.objects.select_related("expert", "item").order_by("pk"),
            )
        )
        .order_by("pk")
    )
    return get_object_or_404(
        _rounds().prefetch_related(Prefetch("items", queryset=items)), pk=round_id
    )


def _item_criteria(item: ReviewItem) -> dict[int, Criterion]:
    return {
        c.pk: c
        for c in Criterion.objects.filter(rubric_version_id=item.rubric_version_id).order_by(
            "position"
        )
    }


def _guideline_payload(benchmark: Benchmark, guideline: Guideline | None) -> dict:
    return {
        "benchmark": benchmark.slug,
        "text": guideline.text if guideline else "",
        "updated": guideline.updated if guideline else None,
        "updated_by": guideline.updated_by.username if guideline and guideline.updated_by else None,
    }


def _consensus(round_: ReviewRound) -> list[dict]:
    units = round_consensus(round_=round_)
    items = list(ReviewItem.objects.filter(round=round_).order_by("pk"))
    criteria: dict[int, list[tuple[int, int]]] = {}
    for pk, version, position in (
        Criterion.objects.filter(rubric_version_id__in={i.rubric_version_id for i in items})
        .order_by("position")
        .values_list("pk", "rubric_version_id", "position")
    ):
        criteria.setdefault(version, []).append((pk, position))
    rows = []
    for item in items:
        units_of_item = []
        for criterion_id, position in criteria.get(item.rubric_version_id, []):
            unit = units.get((item.pk, criterion_id))
            units_of_item.append(
                {
                    "criterion": criterion_id,
                    "position": position,
                    "votes": unit.votes if unit else 0,
                    "hits": unit.hits if unit else 0,
                    "outcome": unit.outcome if unit else NO_VOTES,
                    "label": unit.label if unit else None,
                }
            )
        rows.append({"item": item.pk, "code": item.code, "criteria": units_of_item})
    return rows


# Views ----------------------------------------------------------------------------------


class RoundCollection(APIView):
    permission_classes = [HasPermission]
    required_permission = Perm.MANAGE_REVIEW

    @extend_schema(responses=ManagedRoundOutput(many=True))
    def get(self, request: Request) -> ApiResponse:
        return ApiResponse(ManagedRoundOutput(_rounds(), many=True).data)

    @extend_schema(
        request=RoundCreateInput,
        responses={
            201: ManagedRoundDetailOutput,
            400: OpenApiResponse(description="the round could not be opened; see detail"),
        },
    )
    def post(self, request: Request) -> ApiResponse:
        data = RoundCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        systems = list(dict.fromkeys(fields.pop("systems")))
        experts = list(dict.fromkeys(fields.pop("experts")))
        try:
            round_ = round_open(**fields, systems=systems, experts=experts, user=request.user)
        except RoundInvalid as exc:
            return _detail(str(exc))
        return ApiResponse(
            ManagedRoundDetailOutput(_round_detail(round_.pk)).data,
            status=status.HTTP_201_CREATED,
        )


class RoundDetail(APIView):
    """The round's settings and items, with the systems and the experts' assignments."""

    permission_classes = [HasPermission]
    required_permission = Perm.MANAGE_REVIEW

    @extend_schema(responses=ManagedRoundDetailOutput)
    def get(self, request: Request, round_id: int) -> ApiResponse:
        return ApiResponse(ManagedRoundDetailOutput(_round_detail(round_id)).data)


class RoundExtend(APIView):
    """Grow the sample to a larger fraction, keeping the items already there."""

    permission_classes = [HasPermission]
    required_permission = Perm.MANAGE_REVIEW

    @extend_schema(
        request=RoundExtendInput,
        responses={200: RoundExtendOutput, 400: OpenApiResponse(description="see detail")},
    )
    def post(self, request: Request, round_id: int) -> ApiResponse:
        round_ = get_object_or_404(ReviewRound, pk=round_id)
        data = RoundExtendInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            added = round_extend(
                round_=round_, fraction=data.validated_data["fraction"], user=request.user
            )
        except RoundInvalid as exc:
            return _detail(str(exc))
        round_ = get_object_or_404(_rounds(), pk=round_id)
        return ApiResponse(RoundExtendOutput({"added": added, "round": round_}).data)


class RoundStatus(APIView):
    """Open, pause or close the round."""

    permission_classes = [HasPermission]
    required_permission = Perm.MANAGE_REVIEW

    @extend_schema(
        request=RoundStatusInput,
        responses={
            200: ManagedRoundOutput,
            409: OpenApiResponse(
                RoundWorkOutput, description="closing without confirm: the work it would stop"
            ),
        },
    )
    def post(self, request: Request, round_id: int) -> ApiResponse:
        round_ = get_object_or_404(ReviewRound, pk=round_id)
        data = RoundStatusInput(data=request.data)
        data.is_valid(raise_exception=True)
        wanted = data.validated_data["status"]
        closing = wanted == ReviewRound.Status.CLOSED != round_.status
        if closing and not data.validated_data["confirm"]:
            work = round_work_in_progress(round_=round_)
            payload = {
                "detail": _("Closing stops the work under way; send confirm: true to close."),
                "started_not_submitted": len(work.started),
                "unstarted": work.unstarted,
                "items_short_of_raters": work.short_items,
                "ratings_missing": work.missing_ratings,
            }
            return ApiResponse(RoundWorkOutput(payload).data, status=status.HTTP_409_CONFLICT)
        try:
            round_set_status(round_=round_, status=wanted, user=request.user)
        except RoundInvalid as exc:
            return _detail(str(exc))
        return ApiResponse(ManagedRoundOutput(get_object_or_404(_rounds(), pk=round_id)).data)


class AssignmentReassign(APIView):
    """Move an item nobody has started to another expert of the round's pool."""

    permission_classes = [HasPermission]
    required_permission = Perm.MANAGE_REVIEW

    @extend_schema(
        request=ReassignInput,
        responses={200: ManagedAssignmentOutput, 409: OpenApiResponse(description="see detail")},
    )
    def post(self, request: Request, assignment_id: int) -> ApiResponse:
        assignment = get_object_or_404(Assignment, pk=assignment_id)
        data = ReassignInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            moved = assignment_reassign(
                assignment=assignment, to_expert=data.validated_data["expert"], user=request.user
            )
        except AssignmentRefused as exc:
            return _detail(str(exc), status.HTTP_409_CONFLICT)
        return ApiResponse(ManagedAssignmentOutput(moved).data)


class BenchmarkGuidelines(APIView):
    """The benchmark's annotation guidelines, shown to experts beside every item."""

    permission_classes = [HasPermission]
    required_permission = Perm.MANAGE_REVIEW

    @extend_schema(responses=GuidelineOutput)
    def get(self, request: Request, slug: str) -> ApiResponse:
        benchmark = get_object_or_404(Benchmark, slug=slug)
        guideline = Guideline.objects.filter(benchmark=benchmark).first()
        return ApiResponse(GuidelineOutput(_guideline_payload(benchmark, guideline)).data)

    @extend_schema(request=GuidelineInput, responses=GuidelineOutput)
    def put(self, request: Request, slug: str) -> ApiResponse:
        benchmark = get_object_or_404(Benchmark, slug=slug)
        data = GuidelineInput(data=request.data)
        data.is_valid(raise_exception=True)
        guideline = guideline_save(
            benchmark=benchmark, text=data.validated_data["text"], user=request.user
        )
        return ApiResponse(GuidelineOutput(_guideline_payload(benchmark, guideline)).data)


class ItemReferences(APIView):
    """Make the item a reference item, with the known answer (and why) per criterion."""

    permission_classes = [HasPermission]
    required_permission = Perm.MANAGE_REVIEW

    @extend_schema(
        request=ReferencesInput,
        responses={200: ReferenceItemOutput, 400: OpenApiResponse(description="see detail")},
    )
    def post(self, request: Request, item_id: int) -> ApiResponse:
        item = get_object_or_404(ReviewItem, pk=item_id)
        data = ReferencesInput(data=request.data)
        data.is_valid(raise_exception=True)
        answers = {
            a["criterion"]: (a["hit"], a["explanation"].strip())
            for a in data.validated_data["answers"]
        }
        if set(answers) != set(_item_criteria(item)):
            return _detail(_("Give the reference answer for every criterion."))
        reference_answers_set(item=item, answers=answers, user=request.user)
        item.refresh_from_db()
        payload = {
            "item": item.pk,
            "code": item.code,
            "is_reference": item.is_reference,
            "answers": item.references.select_related("criterion").order_by("criterion__position"),
        }
        return ApiResponse(ReferenceItemOutput(payload).data)


class RoundConsensus(APIView):
    """The majority of the submitted votes per item and criterion; an even split is a tie."""

    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_CONSENSUS

    @extend_schema(responses=ConsensusItemOutput(many=True))
    def get(self, request: Request, round_id: int) -> ApiResponse:
        round_ = get_object_or_404(ReviewRound, pk=round_id)
        round_votes_seen_record(round_=round_, user=request.user, via=VotesSeen.Via.CONSENSUS)
        return ApiResponse(ConsensusItemOutput(_consensus(round_), many=True).data)


class ItemAdjudicate(APIView):
    """A senior decision kept beside the raw votes, which never change."""

    permission_classes = [HasPermission]
    required_permission = Perm.ADJUDICATE

    @extend_schema(
        request=AdjudicationInput,
        responses={200: AdjudicationOutput, 400: OpenApiResponse(description="see detail")},
    )
    def post(self, request: Request, item_id: int) -> ApiResponse:
        item = item_get_for_adjudicator(request.user, item_id)
        item_votes_seen_record(item=item, user=request.user)
        data = AdjudicationInput(data=request.data)
        data.is_valid(raise_exception=True)
        criterion = None
        if data.validated_data["criterion"] is not None:
            criterion = _item_criteria(item).get(data.validated_data["criterion"])
            if criterion is None:
                return _detail(_("This item has no such criterion."))
        decision = Decision(
            criterion=criterion,
            decision=data.validated_data["decision"],
            note=data.validated_data["note"].strip(),
        )
        try:
            (adjudication,) = item_adjudicate(item=item, by=request.user, decisions=[decision])
        except VoteRefused as exc:
            return _detail(str(exc))
        return ApiResponse(AdjudicationOutput(adjudication).data)
