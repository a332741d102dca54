"""Rubric health pages: the benchmark's criteria flagged for revision, each linked into the
rubric editor with its evidence, and one case's criteria version by version (the rubric
history shows it), so a revision's effect is seen.

Computing the report takes seconds at full scale, so a browser first gets the page's frame
at once, saying the report is being computed, and htmx loads the report into it; without
JavaScript, a link (`?now=1`) asks for the whole page, as do clients that do not ask for
HTML (scripts, the test client)."""

from collections import defaultdict
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers

from accounts.access import permission_needed
from annotation.rubric_edit.evidence import evidence_token
from annotation.selectors.benchmarks import benchmark_get, case_get
from core.permissions import Perm
from leaderboard.evidence.selectors.pick import benchmark_judges
from leaderboard.report.wording import health_evidence_text
from leaderboard.rubric_health.selectors.health import (
    CriterionHealth,
    JudgeNotFound,
    health_judge,
    rubric_health,
)
from leaderboard.stats.criterion_health import THRESHOLDS

# The agreement reports' readers: the page shows the judge's disagreement with the experts.
SHOWN = 500  # criteria listed on the page; the command lists them all


def _editor_link(slug: str, row: CriterionHealth) -> str:
    """The rubric editor of the criterion's case; for a flagged criterion, carrying the
    evidence the editor shows and records in the change note."""
    url = reverse("rubric-editor", args=[slug, row.case])
    if not row.health.flags:
        return url
    token = evidence_token(health_evidence_text(row), case_id=row.case_pk)
    return f"{url}?{urlencode({'evidence': token})}"


def _frame_only(request: HttpRequest) -> bool:
    """A browser's first request, unless it asks for the whole page now: the frame, the
    report to follow by htmx."""
    return (
        not request.htmx
        and request.GET.get("now") != "1"
        and "text/html" in request.headers.get("Accept", "")
    )


@permission_needed(Perm.VIEW_CONSENSUS)
def rubric_health_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    context: dict = {"benchmark": benchmark}
    if _frame_only(request):
        judge = request.GET.get("judge", "").strip()
        if judge:  # an unknown judge is told at once, not in the part that follows
            try:
                health_judge(benchmark=benchmark, judge=judge)
            except JudgeNotFound as exc:
                raise Http404(str(exc)) from exc
        now = request.GET.copy()
        now["now"] = "1"
        context["now_query"] = now.urlencode()
        template = "leaderboard/rubric_health.html"
    else:
        context.update(_report_context(request, benchmark))
        template = (
            "leaderboard/_rubric_health_report.html"
            if request.htmx
            else "leaderboard/rubric_health.html"
        )
    response = render(request, template, context)
    patch_vary_headers(response, ("Accept", "HX-Request"))
    return response


def _report_context(request: HttpRequest, benchmark) -> dict:
    """The report's part of the page: the judge read, the figures per ability, the listed
    criteria with their links into the editor."""
    try:
        report = rubric_health(benchmark=benchmark, judge=request.GET.get("judge", "").strip())
    except JudgeNotFound as exc:
        raise Http404(str(exc)) from exc
    every = request.GET.get("all") == "1"
    listed = [row for row in report.criteria if every or row.health.flags]
    rows = [{"row": row, "editor": _editor_link(benchmark.slug, row)} for row in listed[:SHOWN]]
    return {
        "report": report,
        "rows": rows,
        "listed": len(listed),
        "every": every,
        "thresholds": THRESHOLDS,
        "judges": benchmark_judges(benchmark=benchmark),
    }


@permission_needed(Perm.VIEW_CONSENSUS)
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
