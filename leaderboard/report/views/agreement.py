from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.access import permission_needed
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from leaderboard.evidence.selectors.pick import (
    Evidence,
    EvidenceNotFound,
    agreement_evidence,
    benchmark_judges,
    benchmark_rounds,
    round_runs,
)
from leaderboard.gate.services.evaluation import EvaluationRefused, gate_evaluate
from leaderboard.models import GateEvaluation
from leaderboard.report.reading import (
    SMALL_GROUP,
    gate_outlook,
    p_value_text,
    percent,
    statistic_readings,
    units_text,
)
from leaderboard.report.selectors.agreement import disagreements
from leaderboard.report.selectors.case import CaseNotInRound, disagreement_case
from leaderboard.report.typed import AgreementReport
from leaderboard.report.wording import group_label

FILTERS = ("ability", "category", "system", "difficulty", "direction")
SHOWN = 500  # disagreements listed on the page; the filters narrow the rest down


def _min_raters(request: HttpRequest) -> int | None:
    value = request.GET.get("min_raters", "")
    return int(value) if value.isdigit() and 1 <= int(value) <= 50 else None


def _evidence(request: HttpRequest, benchmark, with_report: bool = True) -> Evidence:
    try:
        return agreement_evidence(
            benchmark=benchmark,
            round_ref=request.GET.get("round", ""),
            run_ref=request.GET.get("run", ""),
            judge=request.GET.get("judge", ""),
            with_report=with_report,
            min_raters=_min_raters(request),
        )
    except EvidenceNotFound as exc:
        raise Http404(str(exc)) from exc


def _choices(benchmark, evidence: Evidence, request: HttpRequest) -> dict:
    return {
        "rounds": benchmark_rounds(benchmark=benchmark),
        "runs": round_runs(benchmark=benchmark, round_=evidence.round),
        "judges": benchmark_judges(benchmark=benchmark),
        "judge_name": request.GET.get("judge", ""),
        "round": evidence.round,
        "run": evidence.run,
        "judge": evidence.judge_version,
        "evidence": evidence,
    }


@permission_needed(Perm.VIEW_CONSENSUS)
def agreement_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    evidence = _evidence(request, benchmark)
    report = evidence.report
    evaluations = GateEvaluation.objects.filter(benchmark=benchmark).select_related(
        "run", "round", "evaluated_by", "judge_version__config"
    )[:20]
    return render(
        request,
        "leaderboard/agreement.html",
        {
            "benchmark": benchmark,
            **_choices(benchmark, evidence, request),
            "report": report,
            "policy": evidence.policy,
            "evaluations": evaluations,
            "chart": _chart(report) if report else None,
            "small_group": SMALL_GROUP,
            **(_readings(evidence) if report else {}),
        },
    )


def _readings(evidence: Evidence) -> dict:
    report = evidence.report
    return {
        "readings": statistic_readings(report),
        "units_text": units_text(),
        "p_text": p_value_text(report),
        "outlook": gate_outlook(
            report, units_per_item=len(evidence.units) / max(evidence.items, 1)
        ),
    }


def _chart(report: AgreementReport) -> dict:
    abilities = report.by_ability
    return {
        # The same per-language names as the "By ability" table, not the data's labels.
        "labels": [group_label(name, "ability") for name in abilities],
        "agreement": [row["percent_agreement"] for row in abilities.values()],
        "low": [(row["wilson_95"] or [None])[0] for row in abilities.values()],
        "high": [(row["wilson_95"] or [None, None])[1] for row in abilities.values()],
        "units": [row["units"] for row in abilities.values()],
        "small": SMALL_GROUP,
        "threshold": report.gate["threshold"],
        "legend": _("agreement with the human majority"),
        "threshold_label": _("gate threshold %(t)s") % {"t": percent(report.gate["threshold"])},
        "small_label": _("grey bars: fewer than %(n)d units, too small to read")
        % {"n": SMALL_GROUP},
    }


@permission_needed(Perm.VIEW_CONSENSUS)
def disagreement_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    evidence = _evidence(request, benchmark)
    filters = {name: request.GET.get(name, "") for name in FILTERS}
    rows, total = [], 0
    if evidence.report is not None:
        rows, total = disagreements(
            round_=evidence.round,
            runs=evidence.runs,
            units=evidence.units,
            filters=filters,
            limit=SHOWN,
        )
    return render(
        request,
        "leaderboard/disagreements.html",
        {
            "benchmark": benchmark,
            **_choices(benchmark, evidence, request),
            "rows": rows,
            "total": total,
            "shown": SHOWN,
            "filters": filters,
            "abilities": sorted(
                {u.ability for u in evidence.units}, key=lambda a: group_label(a, "ability")
            ),
            "categories": sorted({u.category for u in evidence.units if u.category}),
            "systems": sorted({u.system for u in evidence.units}),
        },
    )


@permission_needed(Perm.VIEW_CONSENSUS)
def disagreement_case_page(request: HttpRequest, slug: str, response_id: int) -> HttpResponse:
    """One response of the round with everything the judge and the experts said about it,
    the criterion asked for (`criterion`) highlighted."""
    benchmark = benchmark_get(slug=slug)
    evidence = _evidence(request, benchmark, with_report=False)
    if evidence.round is None or not evidence.runs:
        raise Http404(evidence.problem)
    try:
        case = disagreement_case(round_=evidence.round, runs=evidence.runs, response=response_id)
    except CaseNotInRound as exc:
        raise Http404(_("This response is not in the review round.")) from exc
    criterion = request.GET.get("criterion", "")
    return render(
        request,
        "leaderboard/disagreement_case.html",
        {
            "benchmark": benchmark,
            "round": evidence.round,
            "run": evidence.run,
            "evidence": evidence,
            "judge_name": request.GET.get("judge", ""),
            "case": case,
            "highlight": int(criterion) if criterion.isdigit() else None,
        },
    )


@permission_needed(Perm.RECORD_GATE)
@require_POST
def gate_record(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    try:
        evidence = agreement_evidence(
            benchmark=benchmark,
            round_ref=request.POST.get("round", ""),
            run_ref=request.POST.get("run", ""),
            judge=request.POST.get("judge", ""),
        )
        evaluation = gate_evaluate(evidence=evidence, user=request.user)
    except (EvidenceNotFound, EvaluationRefused) as exc:
        messages.error(request, str(exc))
        return redirect(reverse("agreement", args=[slug]))
    if evaluation.passed:
        messages.success(request, _("Gate evaluation recorded: passed."))
    else:
        messages.warning(request, _("Gate evaluation recorded: not passed."))
    return redirect(
        f"{reverse('agreement', args=[slug])}?round={evaluation.round_id}&run={evaluation.run_id}"
    )
