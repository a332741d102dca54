"""Fragments the review pages load with htmx (annotation cannot import the leaderboard):
the round dashboard's live sequential-test card, and the new-round form's planning panel."""

import math

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.models import Benchmark, ReviewRound
from core.permissions import Perm
from leaderboard.evidence.selectors.pick import EvidenceNotFound, benchmark_judges, gate_policy
from leaderboard.sequential.selectors.round_plan import PlanInvalid, PlanTooLarge, gate_plan
from leaderboard.sequential.selectors.round_state import round_sequential, round_unstarted_count

# The longest simulated rounds the panel runs: a few seconds. Closer to the threshold, the
# gate_plan command (no limit) answers.
PANEL_HORIZON = 2500


@permission_needed(Perm.VIEW_CONSENSUS)
def round_sequential_card(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = get_object_or_404(ReviewRound.objects.select_related("benchmark"), pk=round_id)
    try:
        state = round_sequential(round_=round_, judge=request.GET.get("judge", ""))
    except EvidenceNotFound as exc:
        raise Http404(str(exc)) from exc
    can_close = (
        state.decided
        and round_.status != ReviewRound.Status.CLOSED
        and request.user.has_perm(Perm.MANAGE_REVIEW)
    )
    return render(
        request,
        "leaderboard/_round_sequential.html",
        {
            "round": round_,
            "state": state,
            "s": state.state,
            "chart": state.chart,
            "can_close": can_close,
            "unstarted": round_unstarted_count(round_=round_) if can_close else 0,
            "judges": benchmark_judges(benchmark=round_.benchmark),
        },
    )


def _share(request: HttpRequest, name: str, label: str, errors: list[str]) -> float | None:
    raw = request.GET.get(name, "").strip()
    try:
        value = float(raw)
    except ValueError:
        errors.append(_("%(field)s: give a number, such as 0.85.") % {"field": label})
        return None
    if not math.isfinite(value) or not 0 < value < 1:
        errors.append(_("%(field)s must lie strictly between 0 and 1.") % {"field": label})
        return None
    return value


@permission_needed(Perm.MANAGE_REVIEW)
def round_plan_panel(request: HttpRequest) -> HttpResponse:
    """What a round on the chosen benchmark needs to decide: the fixed sample of the
    lower-bound rule, the items the sequential test is expected to use, the design effect."""
    errors: list[str] = []
    benchmark_ref = request.GET.get("benchmark", "")
    benchmark = (
        Benchmark.objects.filter(pk=int(benchmark_ref)).first() if benchmark_ref.isdigit() else None
    )
    if benchmark is None:
        errors.append(_("Choose a benchmark first."))
    expected = _share(request, "expected", _("Expected agreement"), errors)
    threshold = _share(request, "threshold", _("Gate threshold"), errors)
    plan = None
    if not errors:
        try:
            plan = gate_plan(
                benchmark=benchmark,
                expected=expected,
                threshold=threshold,
                pilot_round=request.GET.get("pilot", "").strip(),
                max_horizon=PANEL_HORIZON,
            )
        except PlanTooLarge:
            errors.append(
                _(
                    "The expected agreement is so close to the threshold that the estimate "
                    "needs rounds of more than %(n)s items; run the gate_plan command for it."
                )
                % {"n": PANEL_HORIZON}
            )
        except PlanInvalid as exc:
            errors.append(str(exc))
    return render(
        request,
        "leaderboard/_round_plan.html",
        {
            "plan": plan,
            "errors": errors,
            "policy_threshold": gate_policy(benchmark=benchmark).threshold if benchmark else None,
        },
        status=400 if errors else 200,
    )
