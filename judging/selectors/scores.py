"""Scores of a judge run: the run's verdicts turned into `CaseVerdicts`, then scored.

The database work is a fixed handful of flat `values_list` queries whatever the size of the
run; everything else is the pure scorer in `judging.scoring`.
"""

from collections.abc import Iterator
from typing import Any

from django.db.models import Count, F

from annotation.models import Ability, Benchmark, Category, System
from judging.models import JudgeRun, JudgeTask, Verdict
from judging.scoring import CaseVerdicts, Profile, ScoredCriterion, Value, score_system

# Rows per fetch while streaming verdicts: large runs never sit in memory as model objects.
CHUNK_SIZE = 2000

# The fields of a leaderboard row that may be undefined, in the order they are shown.
SCORE_FIELDS = ("overall", "normal", "hard", "relative_decline")

_VERDICT_FIELDS = (
    "task_id",
    "task__response__system__name",
    "task__response__case__external_id",
    "task__response__case__difficulty",
    "task__response__case__scenario__primary",
    "task__response__case__scenario__secondary",
    "criterion__ability__label",
    "criterion__ability__category__name_en",
    "criterion__weight",
    "criterion__is_catastrophic",
    "hit",
)


def _scenario_label(primary: str | None, secondary: str | None) -> str:
    return " / ".join(part for part in (primary, secondary) if part)


def _done_verdict_rows(run: JudgeRun) -> Iterator[tuple]:
    """Every verdict of the run's done tasks, grouped by task and in rubric order."""
    return (
        Verdict.objects.filter(task__run=run, task__status=JudgeTask.Status.DONE)
        .order_by(
            "task__response__system__name",
            "task__response__case__position",
            "task_id",
            "criterion__position",
        )
        .values_list(*_VERDICT_FIELDS)
        .iterator(chunk_size=CHUNK_SIZE)
    )


def _run_system_names(run: JudgeRun) -> list[str]:
    return list(run.systems.order_by("name").values_list("name", flat=True))


def _failed_counts(run: JudgeRun) -> dict[str, int]:
    return dict(
        JudgeTask.objects.filter(run=run, status=JudgeTask.Status.FAILED)
        .values("response__system__name")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("response__system__name", "n")
    )


def run_case_verdicts(*, run: JudgeRun) -> tuple[dict[str, list[CaseVerdicts]], dict[str, int]]:
    """The run's judged cases per system name, and its failed tasks per system name.

    Only done tasks become `CaseVerdicts`; a failed task is counted, never scored as 0, and a
    pending or cancelled one is neither. Every system of the run has an entry in both
    mappings, even one with nothing judged.
    """
    cases: dict[str, list[CaseVerdicts]] = {name: [] for name in _run_system_names(run)}
    failed = _failed_counts(run)

    current_task: int | None = None
    head: tuple = ()
    criteria: list[ScoredCriterion] = []

    def close_case() -> None:
        system, case_id, difficulty, primary, secondary = head
        cases.setdefault(system, []).append(
            CaseVerdicts(
                case_id=case_id,
                difficulty=difficulty,
                scenario=_scenario_label(primary, secondary),
                criteria=tuple(criteria),
            )
        )

    for row in _done_verdict_rows(run):
        task_id, *case_fields, label, category, weight, catastrophic, hit = row
        if task_id != current_task:
            if current_task is not None:
                close_case()
            current_task, head, criteria = task_id, tuple(case_fields), []
        criteria.append(
            ScoredCriterion(
                ability=label,
                category=category,
                weight=weight,
                is_catastrophic=catastrophic,
                hit=hit,
            )
        )
    if current_task is not None:
        close_case()

    for name in cases:
        failed.setdefault(name, 0)
    for name in failed:
        cases.setdefault(name, [])
    return cases, failed


def _rounded(value: Value, digits: int) -> float | None:
    return None if value.value is None else round(value.value, digits)


def _in_order(scores: dict[str, float], order: dict[str, int]) -> dict[str, float]:
    """Abilities and categories in taxonomy order (unknown ones last, by name), so every
    system's row lists them the same way whatever order its cases came in."""
    ranked = sorted(scores, key=lambda key: (order.get(key, len(order)), key))
    return {key: round(scores[key], 2) for key in ranked}


def leaderboard_rows(*, run: JudgeRun, profile: str) -> list[dict[str, Any]]:
    """One row per system of the run under `profile`, best overall first.

    Numbers are rounded for display (2 decimals; the relative decline, a fraction, to 4). A
    score that cannot be computed is None, with the reason under "undefined".
    """
    profile = Profile(profile)
    cases, failed = run_case_verdicts(run=run)
    kinds = dict(System.objects.filter(name__in=list(cases)).values_list("name", "kind"))
    ability_order = {
        label: i for i, label in enumerate(Ability.objects.values_list("label", flat=True))
    }
    category_order = {
        name: i for i, name in enumerate(Category.objects.values_list("name_en", flat=True))
    }

    rows = []
    for name, judged in cases.items():
        scores = score_system(judged, profile)
        values = {
            "overall": scores.overall,
            "normal": scores.normal,
            "hard": scores.hard,
            "relative_decline": scores.relative_decline,
        }
        rows.append(
            {
                "system": name,
                "kind": kinds.get(name, System.Kind.LLM.value),
                **{
                    field: _rounded(value, 4 if field == "relative_decline" else 2)
                    for field, value in values.items()
                },
                "abilities": _in_order(dict(scores.abilities), ability_order),
                "categories": _in_order(dict(scores.categories), category_order),
                "cases_scored": scores.cases_scored,
                "cases_failed": failed.get(name, 0),
                "undefined": {
                    field: value.reason for field, value in values.items() if not value.is_defined
                },
            }
        )
    # Undefined overall scores go last; ties keep a stable, readable order by name.
    rows.sort(key=lambda row: (row["overall"] is None, -(row["overall"] or 0.0), row["system"]))
    return rows


def latest_finished_run(*, benchmark: Benchmark) -> JudgeRun | None:
    """The benchmark's most recently finished run, LLM-judged or imported."""
    return (
        JudgeRun.objects.filter(benchmark=benchmark, status=JudgeRun.Status.FINISHED)
        .order_by(F("finished").desc(nulls_last=True), "-pk")
        .select_related("config")
        .first()
    )
