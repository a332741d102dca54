from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.access import permission_needed
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from leaderboard.evidence.selectors.pick import benchmark_rounds
from leaderboard.selection.chart import ChartJudge, cost_agreement_chart
from leaderboard.selection.selectors.versions import (
    SelectionInvalid,
    judge_selection,
    selection_round,
)


def _chart(result: dict) -> dict | None:
    placed = [
        ChartJudge(
            label=row["label"],
            cost=row["cost_per_1000"]["value"],
            agreement=row["agreement"]["value"],
            low=row["wilson_95"]["low"],
            high=row["wilson_95"]["high"],
            passed=row["gate"]["passed"],
            cheapest=row["label"] == result["cheapest_passing"]["label"],
        )
        for row in result["judges"]
        if row["cost_per_1000"]["value"] is not None and row["agreement"]["value"] is not None
    ]
    return cost_agreement_chart(placed, result["gate_policy"]["threshold"])


@permission_needed(Perm.VIEW_CONSENSUS)
def judge_selection_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Every judge version evaluated on a review round, to choose the cheapest that passes
    the gate: a table and a cost/agreement chart."""
    benchmark = benchmark_get(slug=slug)
    rounds = benchmark_rounds(benchmark=benchmark)
    round_, result = None, None
    if rounds.exists():
        try:
            round_ = selection_round(ref=request.GET.get("round", ""), benchmark=benchmark)
        except SelectionInvalid as exc:
            raise Http404(str(exc)) from exc
        result = judge_selection(round_=round_)
    return render(
        request,
        "leaderboard/judge_selection.html",
        {
            "benchmark": benchmark,
            "rounds": rounds,
            "round": round_,
            "result": result,
            "chart": _chart(result) if result else None,
            "unplaced": [
                row
                for row in (result or {}).get("judges", [])
                if row["cost_per_1000"]["value"] is None or row["agreement"]["value"] is None
            ],
        },
    )
