"""The expert's side of a review round: their rounds, "next item", and the annotation page.
Everything is fetched through assignment_get_for_expert, and nothing here reads a system."""

from django.contrib import messages
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.access import permission_needed
from annotation.models import Assignment, Flag, Guideline, ReviewRound
from annotation.selectors.guidance import faq_links_for_criteria
from annotation.selectors.item_discussion import discussions_for_rater
from annotation.selectors.review import (
    assignment_get_for_expert,
    calibration_result,
    item_criteria,
    rounds_for_expert,
)
from annotation.selectors.review_workload import expert_workload, submitted_items
from annotation.services.assignment_skip import SKIP_NOTE_MAX_LENGTH, assignment_skip
from annotation.services.review_assignment import (
    OPEN_WORK,
    AssignmentBusy,
    AssignmentRefused,
    assignment_next,
    work_left_for,
)
from annotation.services.review_votes import (
    COMMENT_MAX_LENGTH,
    NOTE_MAX_LENGTH,
    AlreadySubmitted,
    VoteInput,
    VoteInvalid,
    VoteRefused,
    assignment_autosave,
    assignment_submit,
    criteria_ids,
    flag_raise,
)
from core.permissions import Perm


def _posted_votes(request: HttpRequest, assignment: Assignment) -> list[VoteInput]:
    votes = []
    for pk in criteria_ids(assignment):
        raw = request.POST.get(f"hit-{pk}", "")
        hit = True if raw == "1" else False if raw == "0" else None
        votes.append(VoteInput(pk, hit, request.POST.get(f"note-{pk}", "")))
    return votes


def _active_seconds(request: HttpRequest) -> int:
    value = request.POST.get("active_seconds", "0")
    return int(value) if value.isdigit() else 0


@permission_needed(Perm.ANNOTATE)
def my_work(request: HttpRequest) -> HttpResponse:
    rounds = rounds_for_expert(expert=request.user)
    calibrations = {
        r.pk: calibration_result(expert=request.user, round_=r) for r in rounds if r.is_calibration
    }
    for round_ in rounds:  # an expert is in a handful of rounds at a time
        round_.workload = expert_workload(expert=request.user, round_=round_)
        round_.work_left = work_left_for(expert=request.user, round_=round_)
    return render(
        request,
        "annotation/review/my_work.html",
        {
            "rounds": rounds,
            "calibrations": calibrations,
            "discussions": discussions_for_rater(expert=request.user),
        },
    )


@permission_needed(Perm.ANNOTATE)
def my_submitted(request: HttpRequest, round_id: int) -> HttpResponse:
    mine = Q(experts=request.user) | Q(items__assignments__expert=request.user)
    round_ = get_object_or_404(ReviewRound.objects.filter(mine).distinct(), pk=round_id)
    split_items = set()
    if round_.status == ReviewRound.Status.CLOSED:
        discussions = discussions_for_rater(expert=request.user)
        split_items = {item.pk for item in discussions if item.round_id == round_.pk}
    return render(
        request,
        "annotation/review/my_submitted.html",
        {
            "round": round_,
            "assignments": submitted_items(expert=request.user, round_=round_),
            "revisable": round_.status == ReviewRound.Status.OPEN,
            "split_items": split_items,
        },
    )


@permission_needed(Perm.ANNOTATE)
@require_POST
def next_item(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = get_object_or_404(ReviewRound, pk=round_id, experts=request.user)
    try:
        assignment = assignment_next(expert=request.user, round_=round_)
    except AssignmentRefused as exc:
        messages.error(request, str(exc))
        return redirect("review-my-work")
    if assignment is None:
        messages.success(request, _("You have finished your share of this round. Thank you!"))
        return redirect("review-my-work")
    return redirect("review-annotate", assignment_id=assignment.pk)


def _annotate_page(
    request,
    assignment: Assignment,
    *,
    status: int = 200,
    error: str = "",
    posted: dict | None = None,
) -> HttpResponse:
    criteria = item_criteria(assignment=assignment)
    draft = posted if posted is not None else _saved_answers(assignment, criteria)
    round_ = assignment.item.round
    faq = faq_links_for_criteria(benchmark_id=round_.benchmark_id, criteria=criteria)
    # Ids and positions as text: the template would format each number for the locale,
    # some ten times per criterion; the legend is translated here for the same reason.
    legend = _("Verdict on criterion %(n)s")
    rows = [
        {
            "criterion": c,
            "id": str(c.pk),
            "position": str(position),
            "legend": legend % {"n": position},
            "hit": draft.get(str(c.pk), {}).get("hit"),
            "note": draft.get(str(c.pk), {}).get("note", ""),
            "faq": faq.get(c.pk, []),
        }
        for position, c in enumerate(criteria, 1)
    ]
    case = assignment.item.response.case
    guideline = Guideline.objects.filter(benchmark_id=round_.benchmark_id).first()
    round_closed = round_.status == ReviewRound.Status.CLOSED
    workload = expert_workload(
        expert=assignment.expert_id, round_=round_, assignment_id=assignment.pk
    )
    return render(
        request,
        "annotation/review/annotate.html",
        {
            "assignment": assignment,
            "item": assignment.item,
            # Only what the rater may see of the case: the difficulty when the round shows it.
            "dialogue": case.dialogue,
            "difficulty": case.get_difficulty_display() if round_.show_difficulty else None,
            "difficulty_code": case.difficulty if round_.show_difficulty else "",
            "response_text": assignment.item.response.text,
            # A submitted item is revised by submitting again; drafts of a revision stay in
            # the browser, since an autosave never changes a submitted item.
            "autosave": not round_closed and assignment.status != Assignment.Status.SUBMITTED,
            "note_limit": str(NOTE_MAX_LENGTH),
            "comment_limit": COMMENT_MAX_LENGTH,
            "rows": rows,
            "comment": (posted or {}).get(
                "_comment",
                assignment.draft.get("comment", "")
                if assignment.draft
                else assignment.overall_comment,
            ),
            "guideline": guideline,
            "flag_reasons": Flag.Reason.choices,
            "error": error,
            "round_closed": round_closed,
            "workload": workload,
            # The last item of their share: its button does not promise a next one.
            "last_item": assignment.status in OPEN_WORK and workload.done + 1 >= workload.total,
            "skipped": assignment.status == Assignment.Status.SKIPPED,
            "skip_reasons": Assignment.SkipReason.choices,
            "skip_note_limit": SKIP_NOTE_MAX_LENGTH,
        },
        status=status,
    )


def _saved_answers(assignment: Assignment, criteria) -> dict:
    """The autosaved draft if there is one, else the latest submitted revision."""
    if assignment.draft.get("votes"):
        return assignment.draft["votes"]
    if not assignment.revision:
        return {}  # never submitted: no votes to look up
    latest = assignment.votes.filter(revision=assignment.revision)
    return {str(v.criterion_id): {"hit": v.hit, "note": v.note} for v in latest}


@permission_needed(Perm.ANNOTATE)
def annotate(request: HttpRequest, assignment_id: int) -> HttpResponse:
    return _annotate_page(request, assignment_get_for_expert(request.user, assignment_id))


@permission_needed(Perm.ANNOTATE)
@require_POST
def autosave(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = assignment_get_for_expert(request.user, assignment_id, for_page=False)
    try:
        saved = assignment_autosave(
            assignment=assignment,
            votes=_posted_votes(request, assignment),
            comment=request.POST.get("comment", ""),
            active_seconds=_active_seconds(request),
        )
    except VoteInvalid as exc:
        return JsonResponse({"saved": False, "error": str(exc)}, status=400)
    except VoteRefused as exc:  # already submitted, or the round closed: nothing changed
        return JsonResponse(
            {"saved": False, "error": str(exc), "submitted": isinstance(exc, AlreadySubmitted)},
            status=409,
        )
    return JsonResponse({"saved": True, "active_seconds": saved.active_seconds})


@permission_needed(Perm.ANNOTATE)
@require_POST
def submit(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = assignment_get_for_expert(request.user, assignment_id, for_page=False)
    votes = _posted_votes(request, assignment)
    base = request.POST.get("base_revision", "")
    try:
        assignment_submit(
            assignment=assignment,
            votes=votes,
            comment=request.POST.get("comment", ""),
            active_seconds=_active_seconds(request),
            base_revision=int(base) if base.isdigit() else -1,
        )
    except VoteRefused as exc:
        posted = {str(v.criterion_id): {"hit": v.hit, "note": v.note} for v in votes}
        posted["_comment"] = request.POST.get("comment", "")
        return _annotate_page(request, assignment, status=422, error=str(exc), posted=posted)
    round_ = assignment.item.round
    if round_.status != ReviewRound.Status.OPEN:
        messages.success(request, _("Submitted. You have no more items in this round for now."))
        return redirect("review-my-work")
    try:
        following = assignment_next(expert=request.user, round_=round_)
    except AssignmentBusy:
        messages.warning(
            request,
            _(
                "Submitted. Many experts are taking items at this moment. "
                "Please ask for the next item again."
            ),
        )
        return redirect("review-my-work")
    except AssignmentRefused:
        following = None
    if following is not None:
        return redirect("review-annotate", assignment_id=following.pk)
    messages.success(
        request, _("Submitted. You have finished your share of this round. Thank you!")
    )
    return redirect("review-my-work")


@permission_needed(Perm.ANNOTATE)
@require_POST
def skip(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = assignment_get_for_expert(request.user, assignment_id, for_page=False)
    try:
        assignment_skip(
            assignment=assignment,
            reason=request.POST.get("reason", ""),
            note=request.POST.get("note", ""),
        )
    except AssignmentRefused as exc:
        messages.error(request, str(exc))
        return redirect("review-annotate", assignment_id=assignment.pk)
    messages.success(request, _("Skipped: the item went back to the pool."))
    # Straight on to the next item, as after a submit.
    return next_item(request, assignment.item.round_id)


@permission_needed(Perm.ANNOTATE)
@require_POST
def flag(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = assignment_get_for_expert(request.user, assignment_id)
    try:
        flag_raise(
            assignment=assignment,
            reason=request.POST.get("reason", ""),
            note=request.POST.get("note", ""),
        )
    except VoteRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Thank you: the coordinator will look at this item."))
    return redirect("review-annotate", assignment_id=assignment.pk)
