from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.models import ReviewRound
from core.permissions import Perm
from judging.fewshot import DEFAULT_BUDGET
from judging.models import JudgeVersion
from judging.selectors.fewshot import NoProposals, fewshot_proposals
from judging.services.fewshot import Kept, judge_version_with_examples
from judging.services.judge_derive import DeriveRefused

BUDGET_LIMIT = 100_000


def _budget(raw: str) -> tuple[int, str | None]:
    if not raw:
        return DEFAULT_BUDGET, None
    if raw.isdigit() and 0 < int(raw) <= BUDGET_LIMIT:
        return int(raw), None
    return DEFAULT_BUDGET, _("The token budget is a whole number from 1 to %(limit)s.") % {
        "limit": BUDGET_LIMIT
    }


def _kept(post) -> list[Kept]:
    """The examples the coordinator kept, in page order, explanations as edited."""
    kept = []
    for key in post.getlist("example"):
        if post.get(f"keep-{key}") != "on":
            continue
        item, _sep, criterion = key.partition("-")
        if item.isdigit() and criterion.isdigit():
            kept.append(Kept(int(item), int(criterion), post.get(f"explanation-{key}", "")))
    return kept


@permission_needed(Perm.RUN_JUDGE)
def fewshot_page(request: HttpRequest, config_id: int, number: int) -> HttpResponse:
    """Few-shot examples proposed from a round's calibration part for one judge version: the
    coordinator keeps, drops and edits them, then makes the derived version."""
    version = get_object_or_404(
        JudgeVersion.objects.select_related("config", "prompt"), config_id=config_id, number=number
    )
    rounds = ReviewRound.objects.filter(calibration_share__gt=0).order_by("-created")
    data = request.POST if request.method == "POST" else request.GET
    round_ref = data.get("round", "")
    round_ = rounds.filter(pk=int(round_ref)).first() if round_ref.isdigit() else None
    budget, error = _budget(data.get("budget", ""))
    proposals, refusal, status = None, None, 200
    if round_ref and round_ is None:
        error, status = _("No round with a calibration part has this id."), 400
    if round_ is not None and error is None:
        try:
            proposals = fewshot_proposals(version=version, round_=round_, budget=budget)
        except NoProposals as exc:
            refusal = str(exc)
    if request.method == "POST" and proposals is not None:
        try:
            derived = judge_version_with_examples(
                parent=version,
                round_=round_,
                kept=_kept(request.POST),
                note=request.POST.get("note", ""),
                user=request.user,
            )
        except DeriveRefused as exc:
            error, status = str(exc), 400
        else:
            messages.success(
                request,
                _("Made %(version)s: its prompt carries %(n)d examples.")
                % {"version": derived.label, "n": len(derived.examples)},
            )
            config_url = reverse("judge-config", args=[version.config_id])
            return redirect(f"{config_url}#version-{derived.number}")
    elif request.method == "POST":
        status = 400
        error = error or refusal or _("Choose a round with a calibration part.")
    return render(
        request,
        "judging/fewshot.html",
        {
            "version": version,
            "rounds": rounds,
            "round": round_,
            "budget": budget,
            "proposals": proposals,
            "rows": _rows(proposals, request.POST if request.method == "POST" else None),
            "refusal": refusal,
            "error": error,
            "note": request.POST.get("note", ""),
        },
        status=status,
    )


def _rows(proposals, post) -> list[dict]:
    """One row per proposed example; after a refused submission, as the coordinator left
    it (kept or not, explanation as edited)."""
    rows = []
    for candidate in proposals.chosen if proposals else ():
        key = f"{candidate.item}-{candidate.criterion}"
        edited = post is not None and key in post.getlist("example")
        rows.append(
            {
                "c": candidate,
                "key": key,
                "keep": post.get(f"keep-{key}") == "on" if edited else True,
                "explanation": post.get(f"explanation-{key}", "")
                if edited
                else candidate.explanation,
            }
        )
    return rows
