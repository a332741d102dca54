import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet

from annotation.models import Ability, Benchmark, Case, Criterion, RubricVersion
from annotation.selectors.rubrics import latest_version_id_subquery
from core.tables import jsonl_line

EXPORT_CHUNK = 500


def current_versions(*, benchmark: Benchmark) -> QuerySet[RubricVersion]:
    return RubricVersion.objects.filter(
        case__benchmark=benchmark, pk=latest_version_id_subquery("case")
    )


@dataclass(frozen=True)
class CountRow:
    label: str
    name: str
    category: str
    criteria: int
    penalties: int
    catastrophic: bool


def criteria_counts_by_ability(*, benchmark: Benchmark) -> list[CountRow]:
    counts = {
        row["ability"]: row
        for row in Criterion.objects.filter(
            rubric_version__in=current_versions(benchmark=benchmark)
        )
        .values("ability")
        .annotate(n=Count("pk"), penalties=Count("pk", filter=Q(weight__lt=0)))
    }
    abilities = Ability.objects.filter(pk__in=counts).select_related("category")
    return [
        CountRow(
            label=a.label,
            name=a.name,
            category=a.category.name,
            criteria=counts[a.pk]["n"],
            penalties=counts[a.pk]["penalties"],
            catastrophic=a.is_catastrophic,
        )
        for a in abilities
    ]


def criteria_counts_by_category(rows: list[CountRow]) -> list[tuple[str, int]]:
    totals: dict[str, int] = {}
    for row in rows:
        totals[row.category] = totals.get(row.category, 0) + row.criteria
    return list(totals.items())


def cases_changed_since(*, benchmark: Benchmark, since: dt.datetime) -> QuerySet[RubricVersion]:
    """Versions made since `since` that replaced an earlier one (not first imports)."""
    return (
        RubricVersion.objects.filter(
            case__benchmark=benchmark, created__gte=since, parent__isnull=False
        )
        .select_related("case", "author")
        .order_by("-created")
    )


def criteria_search(*, benchmark: Benchmark, text: str, limit: int = 200) -> list[Criterion]:
    return list(
        Criterion.objects.filter(
            rubric_version__in=current_versions(benchmark=benchmark), text__icontains=text
        )
        .select_related("ability", "rubric_version__case")
        .order_by("rubric_version__case__position", "position")[:limit]
    )


def rubrics_export_lines(*, benchmark: Benchmark) -> Iterator[bytes]:
    """The benchmark's current rubrics in the question format, one JSON line per case, in
    import order. Streams: a chunk of cases and their criteria at a time."""
    cases = (
        Case.objects.filter(benchmark=benchmark)
        .select_related("scenario")
        .annotate(current_version_id=latest_version_id_subquery())
        .order_by("position", "external_id")
    )
    chunk: list[Case] = []
    for case in cases.iterator(chunk_size=EXPORT_CHUNK):
        chunk.append(case)
        if len(chunk) == EXPORT_CHUNK:
            yield from _export_chunk(chunk)
            chunk = []
    yield from _export_chunk(chunk)


def _export_chunk(cases: list[Case]) -> Iterator[bytes]:
    if not cases:
        return
    criteria: dict[int, list[dict]] = {}
    rows = (
        Criterion.objects.filter(rubric_version_id__in=[c.current_version_id for c in cases])
        .order_by("rubric_version_id", "position")
        .values_list("rubric_version_id", "ability__label", "weight", "text")
    )
    for version_id, label, weight, text in rows:
        criteria.setdefault(version_id, []).append(
            {"dimension": label, "score": weight, "content": text}
        )
    for case in cases:
        row = {
            "question_id": case.external_id,
            "dialogue": case.dialogue,
            "rubric": criteria.get(case.current_version_id, []),
            "difficulty": case.difficulty,
            "primary_scene": case.scenario.primary if case.scenario else "",
            "secondary_scene": case.scenario.secondary if case.scenario else "",
        }
        yield jsonl_line(row)
