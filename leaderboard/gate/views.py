from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from leaderboard.evidence.selectors.pick import gate_policy
from leaderboard.gate.forms import GatePolicyForm
from leaderboard.gate.services.policy_edit import UNCHANGED, GatePolicyInvalid, gate_policy_set


@permission_needed(Perm.CHANGE_GATEPOLICY)
def gate_policy_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    policy = gate_policy(benchmark=benchmark)
    status = 200
    if request.method == "POST":
        form = GatePolicyForm(request.POST)
        if form.is_valid():
            try:
                gate_policy_set(
                    benchmark=benchmark,
                    rule=form.cleaned_data["rule"],
                    threshold=float(form.cleaned_data["threshold_percent"]) / 100,
                    allow_rubric_changes=form.cleaned_data["allow_rubric_changes"],
                    min_raters=UNCHANGED
                    if form.cleaned_data["min_raters"] is None
                    else form.cleaned_data["min_raters"],
                    max_bias_points=form.cleaned_data["max_bias_points"],
                    chance=(form.cleaned_data["chance_statistic"], form.cleaned_data["min_chance"])
                    if form.cleaned_data["chance_statistic"]
                    else None,
                    user=request.user,
                )
            except GatePolicyInvalid as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, _("Gate policy saved."))
                return redirect("gate-policy", slug)
        status = 400
    else:
        form = GatePolicyForm.for_policy(policy)
    context = {"benchmark": benchmark, "policy": policy, "form": form}
    return render(request, "leaderboard/gate_policy.html", context, status=status)
