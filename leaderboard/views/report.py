"""The agreement report as a PDF download (researchers and coordinators: the export right)."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.models import ReviewRound
from annotation.selectors.benchmarks import benchmark_get
from judging.models import JudgeRun
from leaderboard.agreement import GateRule, agreement_report
from leaderboard.report_pdf import Identification, agreement_pdf_bytes, system_hit_rates
from leaderboard.selectors.agreement import agreement_units
from leaderboard.services.gate import gate_policy

EXPORT = "leaderboard.export_data"


def _chosen(queryset, value: str):
    if value:
        if not value.isdigit():
            raise Http404
        return get_object_or_404(queryset, pk=int(value))
    return queryset.first()


@permission_needed(EXPORT)
def agreement_pdf(request: HttpRequest, slug: str) -> HttpResponse:
    """The report the agreement page shows for the same round and run (by default the
    latest round and finished run, as there)."""
    benchmark = benchmark_get(slug=slug)
    round_ = _chosen(
        ReviewRound.objects.filter(benchmark=benchmark).order_by("-created", "-pk"),
        request.GET.get("round", ""),
    )
    runs = JudgeRun.objects.filter(benchmark=benchmark, kind=JudgeRun.Kind.JUDGE).select_related(
        "config"
    )
    run_id = request.GET.get("run", "")
    run = _chosen(runs if run_id else runs.filter(status=JudgeRun.Status.FINISHED), run_id)
    if round_ is None or run is None:
        raise Http404(_("A review round and a finished judge run of this benchmark are needed."))
    policy = gate_policy(benchmark=benchmark)
    units = agreement_units(round_=round_, run=run)
    report = agreement_report(units, threshold=policy.threshold, rule=GateRule(policy.rule))
    ident = Identification(
        benchmark=f"{benchmark.name} ({benchmark.slug})",
        round=round_.name,
        run=f"#{run.pk} · {run.config.name}",
        generated_at=date_format(timezone.localtime(), "Y-m-d H:i T"),
    )
    pdf = agreement_pdf_bytes(report, ident=ident, systems=system_hit_rates(units))
    response = HttpResponse(pdf, content_type="application/pdf")
    filename = f"{benchmark.slug}-agreement-round{round_.pk}-run{run.pk}.pdf"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
