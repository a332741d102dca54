from dataclasses import dataclass

from django.db.models import Count, Q

from annotation.models import Benchmark
from judging.models import JudgeRun, JudgeTask, Verdict
from judging.models.runs import requested_tasks


@dataclass(frozen=True)
class SaturatedCriterion:
    case: str
    position: int
    version: int
    ability: str
    weight: int | None
    text: str
    systems: int
    all_hit: bool


def saturated_criteria(*, benchmark: Benchmark, run: JudgeRun) -> list[SaturatedCriterion]:
    """Criteria that every judged system got the same verdict on (all hit or all missed):
    they do not tell systems apart, and the HeartBench method drops them. One query."""
    rows = (
        Verdict.objects.filter(
            requested_tasks("task__"),
            task__run=run,
            task__status=JudgeTask.Status.DONE,
            criterion__rubric_version__case__benchmark=benchmark,
        )
        .values(
            "criterion",
            "criterion__rubric_version__case__external_id",
            "criterion__rubric_version__case__position",
            "criterion__rubric_version__number",
            "criterion__position",
            "criterion__ability__label",
            "criterion__weight",
            "criterion__text",
        )
        .annotate(
            systems=Count("task__response__system", distinct=True),
            hits=Count("pk", filter=Q(hit=True)),
            total=Count("pk"),
        )
        .filter(systems__gte=2)
        .order_by("criterion__rubric_version__case__position", "criterion__position")
    )
    return [
        SaturatedCriterion(
            case=row["criterion__rubric_version__case__external_id"],
            position=row["criterion__position"],
            version=row["criterion__rubric_version__number"],
            ability=row["criterion__ability__label"],
            weight=row["criterion__weight"],
            text=row["criterion__text"],
            systems=row["systems"],
            all_hit=row["hits"] == row["total"],
        )
        for row in rows
        if row["hits"] in (0, row["total"])
    ]
