import datetime as dt

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.dateparse import parse_date
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.selectors.benchmarks import benchmark_get
from annotation.selectors.rubric_overview import (
    cases_changed_since,
    criteria_counts_by_ability,
    criteria_counts_by_category,
    criteria_search,
    rubrics_export_lines,
)
from core.downloads import jsonl_download
from core.permissions import Perm


@permission_needed(Perm.VIEW_BENCHMARK)
def rubric_overview(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    by_ability = criteria_counts_by_ability(benchmark=benchmark)
    by_category = criteria_counts_by_category(by_ability)
    since_text = request.GET.get("since", "")
    try:
        since = parse_date(since_text) if since_text else None
    except ValueError:  # the form of a date, but no such day ("2026-13-45")
        since = None
    changed = None
    if since:
        start = timezone.make_aware(dt.datetime.combine(since, dt.time.min))
        changed = cases_changed_since(benchmark=benchmark, since=start)[:500]
    query = request.GET.get("q", "").strip()
    chart = {
        "labels": [row.name for row in by_ability],
        "criteria": [row.criteria for row in by_ability],
        "penalties": [row.penalties for row in by_ability],
        "categories": [name for name, _ in by_category],
        "category_counts": [n for _, n in by_category],
        "legend": {"criteria": _("criteria"), "penalties": _("penalties")},
    }
    since_invalid = bool(since_text) and since is None
    return render(
        request,
        "annotation/rubric_overview.html",
        {
            "benchmark": benchmark,
            "by_ability": by_ability,
            "by_category": by_category,
            "chart": chart,
            "since": since_text,
            "since_invalid": since_invalid,
            "changed": changed,
            "query": query,
            "matches": criteria_search(benchmark=benchmark, text=query) if query else None,
        },
        status=400 if since_invalid else 200,
    )


@permission_needed(Perm.VIEW_BENCHMARK)
def rubric_export(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    benchmark = benchmark_get(slug=slug)
    return jsonl_download(
        rubrics_export_lines(benchmark=benchmark), f"{benchmark.slug}-rubrics.jsonl"
    )
