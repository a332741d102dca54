"""The agreement report as a PDF download (researchers and coordinators: the export right)."""

from django.http import Http404, HttpRequest, HttpResponse

from accounts.access import permission_needed
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from leaderboard.evidence.selectors.pick import EvidenceNotFound, agreement_evidence


@permission_needed(Perm.EXPORT_DATA)
def agreement_pdf(request: HttpRequest, slug: str) -> HttpResponse:
    """The report the agreement page shows for the same round and run (by default, as
    there, the newest round and the newest finished run covering it)."""
    benchmark = benchmark_get(slug=slug)
    try:
        evidence = agreement_evidence(
            benchmark=benchmark,
            round_ref=request.GET.get("round", ""),
            run_ref=request.GET.get("run", ""),
            judge=request.GET.get("judge", ""),
        )
    except EvidenceNotFound as exc:
        raise Http404(str(exc)) from exc
    if evidence.report is None:
        raise Http404(evidence.problem)
    # reportlab is imported when a PDF is drawn, not at every process's start-up.
    from leaderboard.report.pdf import agreement_pdf_of

    response = HttpResponse(agreement_pdf_of(evidence), content_type="application/pdf")
    filename = f"{benchmark.slug}-agreement-round{evidence.round.pk}-run{evidence.run.pk}.pdf"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
