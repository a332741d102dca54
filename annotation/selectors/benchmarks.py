from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404

from annotation.models import Ability, Benchmark, Case, Criterion, Response, RubricVersion
from annotation.selectors.rubrics import latest_version_id_subquery


def benchmark_get(*, slug: str) -> Benchmark:
    return get_object_or_404(Benchmark, slug=slug)


def benchmark_list_with_counts(*, slug: str | None = None) -> list[Benchmark]:
    """Benchmarks (all, or the one with `slug`) with case, criteria, system and response
    counts, in three queries."""
    selected = Benchmark.objects.all() if slug is None else Benchmark.objects.filter(slug=slug)
    benchmarks = list(
        selected.annotate(
            case_count=Count("cases", distinct=True),
            hard_count=Count(
                "cases", filter=Q(cases__difficulty=Case.Difficulty.HARD), distinct=True
            ),
            scenario_count=Count("scenarios", distinct=True),
        )
    )
    current = RubricVersion.objects.filter(
        pk=latest_version_id_subquery("case"), case__benchmark__in=selected
    )
    criteria = dict(
        Criterion.objects.filter(rubric_version__in=current)
        .values_list("rubric_version__case__benchmark")
        .annotate(n=Count("pk"))
    )
    responses = {
        row["case__benchmark"]: row
        for row in Response.objects.filter(case__benchmark__in=selected)
        .values("case__benchmark")
        .annotate(n=Count("pk"), systems=Count("system", distinct=True))
    }
    for benchmark in benchmarks:
        benchmark.criteria_count = criteria.get(benchmark.pk, 0)
        row = responses.get(benchmark.pk, {})
        benchmark.response_count = row.get("n", 0)
        benchmark.system_count = row.get("systems", 0)
    return benchmarks


@dataclass(frozen=True)
class CaseFilters:
    difficulty: str = ""
    scenario_id: int | None = None
    ability_id: int | None = None
    search: str = ""


def cases_for_benchmark(*, benchmark: Benchmark, filters: CaseFilters) -> QuerySet[Case]:
    criteria_of_current = Criterion.objects.filter(rubric_version=OuterRef("current_version_id"))
    cases = (
        Case.objects.filter(benchmark=benchmark)
        .select_related("scenario")
        .annotate(
            current_version_id=latest_version_id_subquery(),
            criteria_count=Coalesce(
                Subquery(
                    criteria_of_current.order_by()
                    .values("rubric_version")
                    .annotate(n=Count("pk"))
                    .values("n")
                ),
                0,
            ),
            response_count=Count("responses", distinct=True),
        )
        .order_by("position", "external_id")
    )
    if filters.difficulty:
        cases = cases.filter(difficulty=filters.difficulty)
    if filters.scenario_id:
        cases = cases.filter(scenario_id=filters.scenario_id)
    if filters.ability_id:
        cases = cases.filter(Exists(criteria_of_current.filter(ability_id=filters.ability_id)))
    if filters.search:
        cases = cases.filter(external_id__icontains=filters.search)
    return cases


def abilities_in_benchmark(*, benchmark: Benchmark) -> QuerySet[Ability]:
    return (
        Ability.objects.filter(criteria__rubric_version__case__benchmark=benchmark)
        .select_related("category")
        .distinct()
    )


def case_get(*, benchmark: Benchmark, external_id: str) -> Case:
    return get_object_or_404(
        Case.objects.select_related("scenario", "benchmark"),
        benchmark=benchmark,
        external_id=external_id,
    )
