"""The coordinator's side of review: opening rounds, the dashboard, consensus,
guidelines and reference answers (adjudication: review_adjudication.py)."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.access import permission_needed
from annotation import audit_actions
from annotation.forms import ReviewRoundForm
from annotation.models import (
    Assignment,
    Benchmark,
    Guideline,
    ReviewItem,
    ReviewRound,
    Vote,
    VotesSeen,
)
from annotation.selectors.item_discussion import discussions_of_round
from annotation.selectors.review import item_criteria, round_consensus
from annotation.selectors.review_dashboard import (
    round_dashboard,
)
from annotation.selectors.round_decisions import round_decision_notices
from annotation.selectors.round_split import round_split
from annotation.selectors.round_work import (
    pool_candidates,
    pool_removable,
    round_work_in_progress,
)
from annotation.services.review_assignment import AssignmentRefused, assignment_reassign
from annotation.services.review_rounds import (
    RoundInvalid,
    guideline_save,
    round_extend,
    round_open,
    round_set_status,
)
from annotation.services.review_votes import (
    reference_answers_set,
)
from annotation.services.votes_seen import round_votes_seen_record
from core.downloads import csv_download
from core.permissions import Perm
from core.tables import csv_lines


@permission_needed(Perm.VIEW_CONSENSUS)
def round_list(request: HttpRequest) -> HttpResponse:
    rounds = list(ReviewRound.objects.select_related("benchmark").prefetch_related("systems"))
    notices = round_decision_notices(round_ids=[round_.pk for round_ in rounds])
    for round_ in rounds:
        round_.decision_notice = notices.get(round_.pk)
    return render(request, "annotation/review/round_list.html", {"rounds": rounds})


def round_benchmark(request: HttpRequest) -> Benchmark | None:
    """The benchmark the new round is for: the one posted or picked above the form, else
    the only one there is, else the newest."""
    chosen = request.POST.get("benchmark") or request.GET.get("benchmark", "")
    benchmarks = Benchmark.objects.order_by("-pk")
    if chosen.isdigit():
        found = benchmarks.filter(pk=int(chosen)).first()
        if found is not None:
            return found
    return benchmarks.first()


def round_settings(data: dict) -> dict:
    """What every way of opening a round takes from its form, as the services' arguments."""
    keys = (
        "benchmark",
        "name",
        "fraction",
        "seed",
        "raters_per_item",
        "max_items_per_expert",
        "deadline",
        "is_calibration",
        "show_difficulty",
        "close_when_decided",
    )
    return {
        **{key: data[key] for key in keys},
        "systems": list(data["systems"]),
        "experts": list(data["experts"]),
        "calibration_share": data["calibration_share"] or 0.0,
    }


def round_new_page(
    request: HttpRequest, *, form, benchmark, open_round, uncertain: bool = False
) -> HttpResponse:
    """The new-round page: `open_round(cleaned_data)` opens the round (a service raising
    RoundInvalid), then the coordinator lands on it; otherwise the form again, saying why."""
    if request.method == "POST" and form.is_valid():
        try:
            round_ = open_round(form.cleaned_data)
        except RoundInvalid as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request, _("Round opened with %(n)d items.") % {"n": round_.items.count()}
            )
            return redirect("review-round", round_id=round_.pk)
    return render(
        request,
        "annotation/review/round_new.html",
        {
            "form": form,
            "benchmark": benchmark,
            "benchmarks": Benchmark.objects.order_by("name"),
            "pilot_rounds": ReviewRound.objects.filter(benchmark=benchmark).order_by("name"),
            "uncertain": uncertain,
        },
        status=400 if form.errors else 200,
    )


@permission_needed(Perm.MANAGE_REVIEW)
def round_new(request: HttpRequest) -> HttpResponse:
    benchmark = round_benchmark(request)
    return round_new_page(
        request,
        form=ReviewRoundForm(request.POST or None, benchmark=benchmark),
        benchmark=benchmark,
        open_round=lambda data: round_open(
            **round_settings(data),
            sampling=data["sampling"] or ReviewRound.Sampling.PROPORTIONAL,
            user=request.user,
        ),
    )


@permission_needed(Perm.VIEW_CONSENSUS)
def round_detail(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = get_object_or_404(ReviewRound.objects.select_related("benchmark"), pk=round_id)
    items = (
        ReviewItem.objects.filter(round=round_)
        .select_related("response__case", "response__system", "rubric_version")
        .order_by("pk")
    )
    unstarted = (
        Assignment.objects.filter(item__round=round_, status="assigned", started__isnull=True)
        .select_related("item", "expert")
        .order_by("pk")
    )
    return render(
        request,
        "annotation/review/round_detail.html",
        {
            "round": round_,
            "dashboard": round_dashboard(round_=round_),
            "items": items,
            "unstarted": unstarted,
            "experts": round_.experts.order_by("username"),
            "candidates": pool_candidates(round_=round_),
            "removable": pool_removable(round_=round_),
            "decision_notice": round_decision_notices(round_ids=[round_.pk]).get(round_.pk),
            "discussions": discussions_of_round(round_=round_),
            "split": round_split(round_=round_),
        },
    )


@permission_needed(Perm.MANAGE_REVIEW)
@require_POST
def round_action(request: HttpRequest, round_id: int, action: str) -> HttpResponse:
    round_ = get_object_or_404(ReviewRound, pk=round_id)
    statuses = {"pause": "paused", "open": "open", "reopen": "open"}
    try:
        if action in statuses:
            done = round_set_status(round_=round_, status=statuses[action], user=request.user)
            if done == audit_actions.ROUND_REOPENED:
                work = round_work_in_progress(round_=round_)
                messages.success(
                    request,
                    _(
                        "Round reopened: its %(n)d items short of raters are handed out "
                        "again, and started items can be submitted."
                    )
                    % {"n": work.short_items},
                )
        elif action == "extend":
            fraction = float(request.POST.get("fraction", "0") or 0)
            added = round_extend(round_=round_, fraction=fraction, user=request.user)
            messages.success(request, _("%(n)d items added.") % {"n": added})
        elif action == "reassign":
            assignment = get_object_or_404(
                Assignment, pk=request.POST.get("assignment"), item__round=round_
            )
            expert = get_object_or_404(get_user_model(), pk=request.POST.get("expert"))
            assignment_reassign(assignment=assignment, to_expert=expert, user=request.user)
            messages.success(request, _("Item reassigned."))
        else:
            raise Http404("Unknown action")
    except (RoundInvalid, AssignmentRefused, ValueError) as exc:
        messages.error(request, str(exc))
    return redirect("review-round", round_id=round_.pk)


@permission_needed(Perm.MANAGE_REVIEW)
def round_close(request: HttpRequest, round_id: int) -> HttpResponse:
    """GET: what closing would stop; POST with `confirm`: close the round."""
    round_ = get_object_or_404(ReviewRound.objects.select_related("benchmark"), pk=round_id)
    if round_.status == ReviewRound.Status.CLOSED:
        messages.info(request, _("This round is already closed."))
        return redirect("review-round", round_id=round_.pk)
    error = ""
    if request.method == "POST":
        if request.POST.get("confirm") == "yes":
            round_set_status(
                round_=round_,
                status=ReviewRound.Status.CLOSED,
                user=request.user,
                release_unstarted=request.POST.get("release") == "yes",
            )
            messages.success(request, _("Round closed. You can reopen it from this page."))
            return redirect("review-round", round_id=round_.pk)
        error = _("Tick the box to confirm that this work stops.")
    return render(
        request,
        "annotation/review/round_close.html",
        {
            "round": round_,
            "work": round_work_in_progress(round_=round_),
            "error": error,
            "decision_notice": round_decision_notices(round_ids=[round_.pk]).get(round_.pk),
            # Closing early (from the sequential card) gives the unopened items back.
            "release": request.POST.get("release") == "yes"
            if request.method == "POST"
            else request.GET.get("early") == "1",
        },
        status=400 if error else 200,
    )


@permission_needed(Perm.VIEW_CONSENSUS)
def round_consensus_page(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = get_object_or_404(ReviewRound, pk=round_id)
    round_votes_seen_record(round_=round_, user=request.user, via=VotesSeen.Via.CONSENSUS)
    units = round_consensus(round_=round_)
    items = {
        item.pk: item
        for item in ReviewItem.objects.filter(round=round_).select_related(
            "response__case", "response__system"
        )
    }
    positions = dict(
        Vote.objects.filter(assignment__item__round=round_)
        .values_list("criterion_id", "criterion__position")
        .distinct()
    )
    rows = sorted(
        (
            {"item": items[u.item_id], "position": positions.get(u.criterion_id), "unit": u}
            for u in units.values()
        ),
        key=lambda r: (r["item"].pk, r["position"] or 0),
    )
    ties = sum(1 for u in units.values() if u.outcome == "tie")
    return render(
        request,
        "annotation/review/consensus.html",
        {"round": round_, "rows": rows, "ties": ties},
    )


@permission_needed(Perm.MANAGE_REVIEW)
def piece_rate_csv(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = get_object_or_404(ReviewRound, pk=round_id)
    dashboard = round_dashboard(round_=round_)
    header = ["expert", "completed_items", "rate_per_item", "amount", "currency"]
    # No rate set: empty cells rather than an amount of 0 that looks like a decision.
    rows = (
        [
            row.username,
            row.done,
            "" if row.rate is None else f"{row.rate:.2f}",
            "" if row.earned is None else f"{row.earned:.2f}",
            settings.CURRENCY,
        ]
        for row in dashboard.experts
    )
    # Safe: a username such as "+1+1" or "@cmd" would run as a formula in a spreadsheet.
    return csv_download(csv_lines(header, rows, safe=True), f"piece-rate-{round_.pk}.csv")


@permission_needed(Perm.MANAGE_REVIEW)
def guidelines_edit(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = get_object_or_404(Benchmark, slug=slug)
    guideline = Guideline.objects.filter(benchmark=benchmark).first()
    if request.method == "POST":
        guideline = guideline_save(
            benchmark=benchmark, text=request.POST.get("text", ""), user=request.user
        )
        messages.success(request, _("Guidelines saved."))
        return redirect("review-guidelines", slug=slug)
    return render(
        request,
        "annotation/review/guidelines.html",
        {"benchmark": benchmark, "guideline": guideline},
    )


@permission_needed(Perm.MANAGE_REVIEW)
def references_edit(request: HttpRequest, item_id: int) -> HttpResponse:
    item = get_object_or_404(
        ReviewItem.objects.select_related("round", "response__case"), pk=item_id
    )
    criteria = item_criteria(assignment=Assignment(item=item))
    if request.method == "POST":
        answers = {}
        for criterion in criteria:
            choice = request.POST.get(f"hit-{criterion.pk}", "")
            if choice in ("0", "1"):
                answers[criterion.pk] = (
                    choice == "1",
                    request.POST.get(f"explanation-{criterion.pk}", "").strip(),
                )
        if len(answers) != len(criteria):
            messages.error(request, _("Give the reference answer for every criterion."))
        else:
            reference_answers_set(item=item, answers=answers, user=request.user)
            messages.success(request, _("Reference answers saved."))
            return redirect("review-round", round_id=item.round_id)
    existing = {r.criterion_id: r for r in item.references.all()}
    return render(
        request,
        "annotation/review/references.html",
        {
            "item": item,
            "case": item.response.case,
            "rows": [(c, existing.get(c.pk)) for c in criteria],
        },
    )
