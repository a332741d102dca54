from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.shortcuts import get_object_or_404

from annotation.consensus import majority
from annotation.models import (
    Assignment,
    Criterion,
    ReferenceAnswer,
    ReviewItem,
    ReviewRound,
    Vote,
)

CALIBRATION_THRESHOLD = 0.8


def assignment_get_for_expert(user, assignment_id: int, *, for_page: bool = True) -> Assignment:
    """The expert's own assignment, or 404: no one reaches another expert's work by
    changing the id. Saving a draft or submitting (`for_page=False`) needs neither the
    dialogue nor the response, the largest values of the page, so they are not read."""
    # Each table joined costs PostgreSQL more planning than the row costs to read.
    related = ("item__round", "item__response__case") if for_page else ("item__round",)
    return get_object_or_404(
        Assignment.objects.select_related(*related), pk=assignment_id, expert=user
    )


def rates_in_round(user) -> Q:
    """Items (a ReviewItem filter) of the rounds `user` rates in: in the round's pool, or
    with an assignment in it (an expert since removed from the pool)."""
    pool = ReviewRound.experts.through.objects.filter(
        reviewround_id=OuterRef("round_id"), user_id=user.pk
    )
    work = Assignment.objects.filter(item__round_id=OuterRef("round_id"), expert_id=user.pk)
    return Q(Exists(pool)) | Q(Exists(work))


def item_get_for_adjudicator(user, item_id: int) -> ReviewItem:
    """An item a senior expert or coordinator may adjudicate, or 404. The caller records
    that they opened it (annotation.services.votes_seen), so its round never hands them an
    item to rate.

    Adjudicating means reading the raters' votes and notes, so a round's raters never
    adjudicate it: not only the item they rate (they would see the others' votes before
    submitting, or settle a split they are part of), but any of the round's items, where
    other responses to the same case show how the others judged the very criteria they
    judge."""
    item = get_object_or_404(
        ReviewItem.objects.select_related("round", "response__case").exclude(rates_in_round(user)),
        pk=item_id,
    )
    return item


def rounds_for_expert(*, expert) -> list[ReviewRound]:
    """Open and paused rounds the expert is in, with how many items they have done."""
    rounds = list(
        ReviewRound.objects.filter(experts=expert)
        .exclude(status=ReviewRound.Status.CLOSED)
        .annotate(
            mine_done=Count(
                "items__assignments",
                filter=Q(items__assignments__expert=expert, items__assignments__status="submitted"),
            ),
            mine_open=Count(
                "items__assignments",
                filter=Q(items__assignments__expert=expert)
                & ~Q(items__assignments__status__in=["submitted", "skipped"]),
            ),
        )
        .order_by("-is_calibration", "created")
    )
    return rounds


def current_votes(*, round_: ReviewRound) -> QuerySet[Vote]:
    """Each submitted assignment's latest revision of votes."""
    return Vote.objects.current().filter(assignment__item__round=round_)


def current_votes_on(*, criteria: QuerySet[Criterion]) -> QuerySet[Vote]:
    """The current votes (as `current_votes` has them) on `criteria`, in every round."""
    return Vote.objects.current().filter(criterion__in=criteria)


@dataclass(frozen=True)
class UnitConsensus:
    item_id: int
    criterion_id: int
    votes: int
    hits: int
    outcome: str  # "majority", "tie" or "no votes"
    label: bool | None


def round_consensus(*, round_: ReviewRound) -> dict[tuple[int, int], UnitConsensus]:
    """Majority of the submitted votes per (item, criterion); an even split is a tie,
    never guessed. One query."""
    votes: dict[tuple[int, int], list[bool]] = defaultdict(list)
    for item_id, criterion_id, hit in current_votes(round_=round_).values_list(
        "assignment__item_id", "criterion_id", "hit"
    ):
        votes[(item_id, criterion_id)].append(hit)
    result = {}
    for key, hits in votes.items():
        verdict = majority(hits)
        result[key] = UnitConsensus(
            item_id=key[0],
            criterion_id=key[1],
            votes=len(hits),
            hits=sum(hits),
            outcome=verdict.outcome,
            label=verdict.label,
        )
    return result


def expert_reference_accuracy(*, expert) -> float | None:
    """Share of the expert's current votes on reference items that match the reference
    (None: no such vote has a reference answer). One aggregate: each claim asks for it."""
    with connection.cursor() as cursor:
        cursor.execute(
            _REFERENCE_MATCHES, [getattr(expert, "pk", expert), Assignment.Status.SUBMITTED]
        )
        matched, compared = cursor.fetchone()
    return matched / compared if compared else None


# A submitted assignment's current votes are those of its revision; each (item, criterion)
# has one reference answer and one current vote per expert.
_REFERENCE_MATCHES = (
    "SELECT COALESCE(SUM(CASE WHEN v.hit = r.hit THEN 1 ELSE 0 END), 0), COUNT(*) "
    f"FROM {Vote._meta.db_table} v "
    f"JOIN {Assignment._meta.db_table} a ON a.id = v.assignment_id "
    f"JOIN {ReferenceAnswer._meta.db_table} r "
    "ON r.item_id = a.item_id AND r.criterion_id = v.criterion_id "
    f"JOIN {ReviewItem._meta.db_table} i ON i.id = a.item_id "
    "WHERE a.expert_id = %s AND a.status = %s AND v.revision = a.revision AND i.is_reference"
)


@dataclass
class CalibrationResult:
    complete: bool
    agreement: float | None
    passed: bool
    threshold: float
    details: list[dict] = field(default_factory=list)


def calibration_result(*, expert, round_: ReviewRound) -> CalibrationResult:
    """How the expert did on the calibration round's reference items, criterion by
    criterion with the coordinators' explanations."""
    items = list(
        ReviewItem.objects.filter(round=round_, is_reference=True).values_list("pk", flat=True)
    )
    mine = {(a.item_id): a for a in Assignment.objects.filter(item_id__in=items, expert=expert)}
    complete = bool(items) and all(
        item in mine and mine[item].status == Assignment.Status.SUBMITTED for item in items
    )
    votes = {
        (v.assignment.item_id, v.criterion_id): v.hit
        for v in Vote.objects.current()
        .filter(assignment__in=list(mine.values()))
        .select_related("assignment")
    }
    details = []
    agreed = 0
    for ref in (
        ReferenceAnswer.objects.filter(item_id__in=items)
        .select_related("criterion", "item")
        .order_by("item_id", "criterion__position")
    ):
        mine_hit = votes.get((ref.item_id, ref.criterion_id))
        if mine_hit is None:
            continue
        agreed += mine_hit == ref.hit
        details.append(
            {
                "item": ref.item.code,
                "criterion": ref.criterion.text,
                "position": ref.criterion.position,
                "yours": mine_hit,
                "reference": ref.hit,
                "explanation": ref.explanation,
            }
        )
    agreement = agreed / len(details) if details else None
    return CalibrationResult(
        complete=complete,
        agreement=agreement,
        passed=agreement is not None and agreement >= CALIBRATION_THRESHOLD,
        threshold=CALIBRATION_THRESHOLD,
        details=details,
    )


def item_criteria(*, assignment: Assignment) -> list[Criterion]:
    return list(
        Criterion.objects.filter(rubric_version_id=assignment.item.rubric_version_id)
        .select_related("ability")
        .order_by("position")
    )
