from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.access import permission_needed
from annotation.models import ReviewRound
from annotation.selectors.benchmarks import benchmark_get
from judging.models import JudgeRun
from leaderboard.agreement import GateRule, agreement_report
from leaderboard.models import GateEvaluation
from leaderboard.selectors.agreement import agreement_units, disagreements
from leaderboard.services.gate import gate_evaluate, gate_policy
from leaderboard.wording import group_label

VIEW = "annotation.view_consensus"
SHOWN = 500  # disagreements listed on the page; the filters narrow the rest down


def _choices(benchmark, request):
    rounds = ReviewRound.objects.filter(benchmark=benchmark).order_by("-created")
    runs = JudgeRun.objects.filter(
        benchmark=benchmark, kind=JudgeRun.Kind.JUDGE, status=JudgeRun.Status.FINISHED
    ).select_related("config")
    round_id, run_id = request.GET.get("round", ""), request.GET.get("run", "")
    round_ = rounds.filter(pk=int(round_id)).first() if round_id.isdigit() else rounds.first()
    run = runs.filter(pk=int(run_id)).first() if run_id.isdigit() else runs.first()
    return rounds, runs, round_, run


@permission_needed(VIEW)
def agreement_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    rounds, runs, round_, run = _choices(benchmark, request)
    policy = gate_policy(benchmark=benchmark)
    report = None
    if round_ and run:
        report = agreement_report(
            agreement_units(round_=round_, run=run),
            threshold=policy.threshold,
            rule=GateRule(policy.rule),
        )
    evaluations = GateEvaluation.objects.filter(benchmark=benchmark).select_related(
        "run", "round", "evaluated_by"
    )[:20]
    return render(
        request,
        "leaderboard/agreement.html",
        {
            "benchmark": benchmark,
            "rounds": rounds,
            "runs": runs,
            "round": round_,
            "run": run,
            "report": report,
            "policy": policy,
            "evaluations": evaluations,
            "chart": _chart(report) if report else None,
        },
    )


def _chart(report: dict) -> dict:
    abilities = report["by_ability"]
    return {
        # The same per-language names as the "By ability" table, not the data's labels.
        "labels": [group_label(name, "ability") for name in abilities],
        "agreement": [row["percent_agreement"] for row in abilities.values()],
        "low": [(row["wilson_95"] or [None])[0] for row in abilities.values()],
        "high": [(row["wilson_95"] or [None, None])[1] for row in abilities.values()],
        "threshold": report["gate"]["threshold"],
        "legend": _("agreement with the human majority"),
    }


@permission_needed(VIEW)
def disagreement_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    rounds, runs, round_, run = _choices(benchmark, request)
    filters = {
        name: request.GET.get(name, "") for name in ("ability", "system", "difficulty", "direction")
    }
    rows, units, total = [], [], 0
    if round_ and run:
        units = agreement_units(round_=round_, run=run)
        rows, total = disagreements(
            round_=round_, run=run, units=units, filters=filters, limit=SHOWN
        )
    return render(
        request,
        "leaderboard/disagreements.html",
        {
            "benchmark": benchmark,
            "rounds": rounds,
            "runs": runs,
            "round": round_,
            "run": run,
            "rows": rows,
            "total": total,
            "shown": SHOWN,
            "filters": filters,
            "abilities": sorted({u.ability for u in units}),
            "systems": sorted({u.system for u in units}),
        },
    )


@permission_needed(VIEW)
@require_POST
def gate_record(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    round_ = get_object_or_404(ReviewRound, pk=request.POST.get("round"), benchmark=benchmark)
    run = get_object_or_404(JudgeRun, pk=request.POST.get("run"), benchmark=benchmark)
    evaluation = gate_evaluate(round_=round_, run=run, user=request.user)
    if evaluation.passed:
        messages.success(request, _("Gate evaluation recorded: passed."))
    else:
        messages.warning(request, _("Gate evaluation recorded: not passed."))
    return redirect(f"{reverse('agreement', args=[slug])}?round={round_.pk}&run={run.pk}")
