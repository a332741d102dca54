from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.access import permission_needed
from annotation.models import Case
from annotation.selectors.benchmarks import (
    CaseFilters,
    abilities_in_benchmark,
    benchmark_get,
    benchmark_list_with_counts,
    case_get,
    cases_for_benchmark,
)
from annotation.selectors.cases import case_view
from core.permissions import Perm

CASES_PER_PAGE = 25


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value else None
    except ValueError:
        return None


@permission_needed(Perm.VIEW_BENCHMARK)
def benchmark_list(request: HttpRequest) -> HttpResponse:
    return render(
        request, "annotation/benchmark_list.html", {"benchmarks": benchmark_list_with_counts()}
    )


@permission_needed(Perm.VIEW_BENCHMARK)
def benchmark_detail(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    difficulty = request.GET.get("difficulty", "")
    filters = CaseFilters(
        difficulty=difficulty if difficulty in Case.Difficulty.values else "",
        scenario_id=_int_or_none(request.GET.get("scenario")),
        ability_id=_int_or_none(request.GET.get("ability")),
        search=request.GET.get("q", "").strip(),
    )
    page = Paginator(cases_for_benchmark(benchmark=benchmark, filters=filters), CASES_PER_PAGE)
    context = {
        "benchmark": benchmark,
        "filters": filters,
        "page": page.get_page(request.GET.get("page")),
        "difficulties": Case.Difficulty.choices,
        "scenarios": benchmark.scenarios.all(),
        "abilities": abilities_in_benchmark(benchmark=benchmark),
        "querystring": _querystring_without_page(request),
    }
    template = "annotation/_case_table.html" if request.htmx else "annotation/benchmark_detail.html"
    return render(request, template, context)


def _querystring_without_page(request: HttpRequest) -> str:
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()


@permission_needed(Perm.VIEW_BENCHMARK)
def case_detail(request: HttpRequest, slug: str, external_id: str) -> HttpResponse:
    case = case_get(benchmark=benchmark_get(slug=slug), external_id=external_id)
    view = case_view(case=case, version_number=_int_or_none(request.GET.get("version")))
    return render(request, "annotation/case_detail.html", {"view": view, "case": case})
