"""Adjudication: the queue of items that need a senior expert's decision, and the decision
page, which shows the raters' votes and notes under pseudonyms (never the system)."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.consensus import is_tie
from annotation.models import Assignment, Flag, ReviewRound, Vote
from annotation.selectors.rater_pseudonyms import round_rater_pseudonyms
from annotation.selectors.review import item_criteria, item_get_for_adjudicator
from annotation.selectors.review_dashboard import QUEUE_NEEDED, QUEUE_SPLITS, adjudication_queue
from annotation.services.review_adjudication import Decision, item_adjudicate
from annotation.services.review_votes import NOTE_MAX_LENGTH, VoteRefused
from annotation.services.votes_seen import item_votes_seen_record
from core.permissions import Perm


def _queue_filter(request: HttpRequest) -> str:
    """The queue's filter (round and what to show) as a query string, only the parts that
    make sense: carried from the queue to an item and back after the decision."""
    values = {}
    round_id = request.GET.get("round", "")
    if round_id.isdigit():
        values["round"] = round_id
    if request.GET.get("show") == QUEUE_SPLITS:
        values["show"] = QUEUE_SPLITS
    return urlencode(values)


@permission_needed(Perm.ADJUDICATE)
def adjudication_list(request: HttpRequest) -> HttpResponse:
    round_id = request.GET.get("round", "")
    round_ = get_object_or_404(ReviewRound, pk=int(round_id)) if round_id.isdigit() else None
    rounds = ReviewRound.objects.order_by("-created")
    show = QUEUE_SPLITS if request.GET.get("show") == QUEUE_SPLITS else QUEUE_NEEDED
    return render(
        request,
        "annotation/review/adjudication_list.html",
        {
            "queue": adjudication_queue(round_=round_, adjudicator=request.user, show=show),
            "round": round_,
            "rounds": rounds,
            "show": show,
            "query": _queue_filter(request),
        },
    )


def _posted_decisions(request: HttpRequest, criteria) -> list[Decision]:
    """The decisions and notes given per criterion, and the overall note (always recorded:
    it marks the item as adjudicated)."""
    decisions = []
    for criterion in criteria:
        choice = {"1": True, "0": False}.get(request.POST.get(f"decision-{criterion.pk}", ""))
        note = request.POST.get(f"note-{criterion.pk}", "").strip()
        if choice is not None or note:
            decisions.append(Decision(criterion=criterion, decision=choice, note=note))
    decisions.append(
        Decision(criterion=None, decision=None, note=request.POST.get("note", "").strip())
    )
    return decisions


@permission_needed(Perm.ADJUDICATE)
def adjudicate(request: HttpRequest, item_id: int) -> HttpResponse:
    """A senior expert sees the votes and notes (never the system) and records a decision."""
    item = item_get_for_adjudicator(request.user, item_id)
    item_votes_seen_record(item=item, user=request.user)
    criteria = item_criteria(assignment=Assignment(item=item))
    error = ""
    if request.method == "POST":
        try:
            item_adjudicate(
                item=item, by=request.user, decisions=_posted_decisions(request, criteria)
            )
        except VoteRefused as exc:
            error = str(exc)  # the page comes back with what was typed
        else:
            messages.success(request, _("Decision recorded; the raw votes are unchanged."))
            query = _queue_filter(request)
            queue = reverse("review-adjudication")
            return redirect(f"{queue}?{query}" if query else queue)
    # Raters appear by their pseudonym: a known strict or lenient colleague would weigh on
    # the decision.
    names = round_rater_pseudonyms(round_=item.round)
    votes = Vote.objects.current().filter(assignment__item=item).select_related("assignment")
    by_criterion: dict[int, list[Vote]] = {}
    for vote in sorted(votes, key=lambda v: names.get(v.assignment.expert_id, "")):
        vote.rater = names.get(vote.assignment.expert_id, "")
        by_criterion.setdefault(vote.criterion_id, []).append(vote)
    labels = dict(Flag.Reason.choices)
    flags = [
        (labels.get(reason, reason), note)
        for reason, note in item.assignments.filter(flags__isnull=False).values_list(
            "flags__reason", "flags__note"
        )
    ]
    posted = request.POST if error else {}
    rows = [
        {
            "criterion": c,
            "votes": by_criterion.get(c.pk, []),
            "decision": posted.get(f"decision-{c.pk}", ""),
            "note": posted.get(f"note-{c.pk}", ""),
            **_split(by_criterion.get(c.pk, [])),
        }
        for c in criteria
    ]
    return render(
        request,
        "annotation/review/adjudicate.html",
        {
            "item": item,
            "case": item.response.case,
            "rows": rows,
            "flags": flags,
            "error": error,
            "note": posted.get("note", ""),
            "note_limit": NOTE_MAX_LENGTH,
            "query": _queue_filter(request),
        },
        status=400 if error else 200,
    )


def _split(votes: list[Vote]) -> dict:
    """Whether the raters split on a criterion (and evenly: a tie), in words."""
    hits, n = sum(1 for vote in votes if vote.hit), len(votes)
    if n < 2 or not 0 < hits < n:
        return {"split": False, "tie": False, "split_text": ""}
    tie = is_tie(n, hits)
    text = (
        _("Tie: %(hits)d of %(n)d raters said met")
        if tie
        else _("Raters split: %(hits)d of %(n)d met")
    )
    return {"split": True, "tie": tie, "split_text": text % {"hits": hits, "n": n}}
