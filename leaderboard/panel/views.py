"""The judge panel page: can this judge replace an expert? Thin over `judge_panel`."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from leaderboard.evidence.selectors.pick import benchmark_judges, benchmark_rounds
from leaderboard.panel.reading import panel_view
from leaderboard.panel.selectors import PanelInputError, judge_panel, parse_epsilons
from leaderboard.stats.alt_test import MIN_EXPERTS, MIN_ITEMS

# The agreement reports' readers: the page shows the judge's verdicts beside the experts'.


def panel_query(*, benchmark, params) -> dict:
    """The panel the query asks for (round, judge, repeated or comma-separated margins).
    Raises PanelInputError with a message for people."""
    return judge_panel(
        benchmark=benchmark,
        round_ref=params.get("round", ""),
        judge=params.get("judge", ""),
        epsilons=parse_epsilons(params.getlist("epsilon")),
    )


@permission_needed(Perm.VIEW_CONSENSUS)
def judge_panel_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    judges = list(benchmark_judges(benchmark=benchmark))
    params = request.GET.copy()
    if not params.get("judge") and judges:
        params["judge"] = judges[0].name
    context = {
        "benchmark": benchmark,
        "judges": judges,
        "rounds": list(benchmark_rounds(benchmark=benchmark).values_list("pk", "name")),
        "judge_name": params.get("judge", ""),
        "round_ref": params.get("round", ""),
        "epsilon_text": ", ".join(params.getlist("epsilon")),
        "min_items": MIN_ITEMS,
        "min_experts": MIN_EXPERTS,
        "panel": None,
        "problem": "",
    }
    if not judges and not params.get("judge"):
        context["problem"] = _("No judge has a finished run on this benchmark yet.")
        return render(request, "leaderboard/panel.html", context)
    try:
        payload = panel_query(benchmark=benchmark, params=params)
    except PanelInputError as exc:
        context["problem"] = str(exc)
        return render(request, "leaderboard/panel.html", context, status=400)
    context.update(payload=payload, panel=panel_view(payload))
    return render(request, "leaderboard/panel.html", context)
