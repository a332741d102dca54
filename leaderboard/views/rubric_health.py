"""Rubric health pages: the benchmark's criteria flagged for revision, each linked into the
rubric editor with its evidence, and one case's criteria version by version (the rubric
history shows it), so a revision's effect is seen."""

from collections import defaultdict
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from accounts.access import permission_needed
from annotation.rubric_edit.evidence import evidence_token
from annotation.selectors.benchmarks import benchmark_get, case_get
from leaderboard.selectors.evidence import benchmark_judges
from leaderboard.selectors.rubric_health import CriterionHealth, JudgeNotFound, rubric_health
from leaderboard.stats.criterion_health import THRESHOLDS
from leaderboard.wording import health_evidence_text

# The agreement reports' readers: the page shows the judge's disagreement with the experts.
VIEW = "annotation.view_consensus"
SHOWN = 500  # criteria listed on the page; the command lists them all


def _editor_link(slug: str, row: CriterionHealth) -> str:
    """The rubric editor of the criterion's case; for a flagged criterion, carrying the
    evidence the editor shows and records in the change note."""
    url = reverse("rubric-editor", args=[slug, row.case])
    if not row.health.flags:
        return url
    token = evidence_token(health_evidence_text(row), case_id=row.case_pk)
    return f"{url}?{urlencode({'evidence': token})}"


@permission_needed(VIEW)
def rubric_health_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    try:
        report = rubric_health(benchmark=benchmark, judge=request.GET.get("judge", "").strip())
    except JudgeNotFound as exc:
        raise Http404(str(exc)) from exc
    every = request.GET.get("all") == "1"
    listed = [row for row in report.criteria if every or row.health.flags]
    rows = [{"row": row, "editor": _editor_link(benchmark.slug, row)} for row in listed[:SHOWN]]
    return render(
        request,
        "leaderboard/rubric_health.html",
        {
            "benchmark": benchmark,
            "report": report,
            "rows": rows,
            "listed": len(listed),
            "every": every,
            "thresholds": THRESHOLDS,
            "judges": benchmark_judges(benchmark=benchmark),
        },
    )


@permission_needed(VIEW)
def rubric_health_versions(request: HttpRequest, slug: str, external_id: str) -> HttpResponse:
    """Each criterion of one case (the same key across versions), with its health in every
    version it has: before and after each revision."""
    benchmark = benchmark_get(slug=slug)
    case = case_get(benchmark=benchmark, external_id=external_id)
    try:
        report = rubric_health(
            benchmark=benchmark,
            case=case,
            latest_only=False,
            judge=request.GET.get("judge", "").strip(),
        )
    except JudgeNotFound as exc:
        raise Http404(str(exc)) from exc
    by_key: dict[str, list[CriterionHealth]] = defaultdict(list)
    for row in report.criteria:
        by_key[row.key].append(row)
    newest = max((row.version for row in report.criteria), default=0)

    def order(key: str) -> tuple:
        last = by_key[key][-1]
        return (last.version != newest, last.position, -last.version)

    criteria = [
        {"current": by_key[key][-1], "versions": list(reversed(by_key[key]))}
        for key in sorted(by_key, key=order)
    ]
    template = (
        "leaderboard/_rubric_health_versions.html"
        if request.htmx
        else "leaderboard/rubric_health_versions.html"
    )
    return render(
        request,
        template,
        {"benchmark": benchmark, "case": case, "criteria": criteria, "newest": newest},
    )
