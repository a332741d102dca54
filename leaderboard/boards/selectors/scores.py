"""Scores of a leaderboard: the verdicts its runs count (see `boards`), scored.

The database work is a fixed handful of flat `values_list` queries whatever the size of the
runs; everything else is the pure scorer in `judging.scoring`. Numbers are kept at full
precision: rounding is for pages.
"""

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

import numpy as np
from django.db import connections
from django.db.models import Count

from annotation.models import Ability, Criterion, System
from judging.models import JudgeTask, Verdict
from judging.scoring import CaseVerdicts, Profile, ScoredCriterion, Value
from judging.scoring.matrix import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MatrixSummary,
    ability_matrix,
    overall_bootstraps,
    summarise,
)
from judging.scoring.reasons import NO_CASES
from leaderboard.boards.selectors.runs import BoardRuns

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


def _done_verdict_rows(board: BoardRuns) -> Iterator[tuple]:
    """Every verdict of the board's tasks, grouped by task and in rubric order."""
    return (
        Verdict.objects.filter(task__in=board.tasks().values("pk"))
        .order_by(
            "task__response__system__name",
            "task__response__case__position",
            "task_id",
            "criterion__position",
        )
        .values_list(*_VERDICT_FIELDS)
        .iterator(chunk_size=CHUNK_SIZE)
    )


def _run_system_names(board: BoardRuns) -> list[str]:
    return list(
        System.objects.filter(judge_runs__in=board.run_ids)
        .distinct()
        .order_by("name")
        .values_list("name", flat=True)
    )


def _failed_counts(board: BoardRuns) -> dict[str, int]:
    return dict(
        JudgeTask.objects.filter(pk__in=board.failed().values("pk"))
        .values("response__system__name")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("response__system__name", "n")
    )


def board_case_verdicts(
    *, board: BoardRuns
) -> tuple[dict[str, list[CaseVerdicts]], dict[str, int]]:
    """The board's judged cases per system name, and its failed cases per system name.

    Only done tasks become `CaseVerdicts`; a failed task is counted, never scored as 0, and a
    pending or cancelled one is neither. Every system of the run has an entry in both
    mappings, even one with nothing judged.
    """
    cases: dict[str, list[CaseVerdicts]] = {name: [] for name in _run_system_names(board)}
    failed = _failed_counts(board)

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

    for row in _done_verdict_rows(board):
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


def _number(value: Value) -> float | None:
    return value.value


def _taxonomy_order(labels: Iterable[str]) -> tuple[list[str], dict[str, tuple[str, str]]]:
    """The labels in taxonomy order (unknown ones last, by label), with each label's category
    (English name, the key rows use) and the category's position. One query."""
    known = {
        label: (category, (category_position, position))
        for label, category, category_position, position in Ability.objects.filter(
            label__in=list(labels)
        ).values_list("label", "category__name_en", "category__position", "position")
    }
    ordered = sorted(
        labels, key=lambda label: (label not in known, known.get(label, ("", (0, 0)))[1], label)
    )
    return ordered, {label: known[label] for label in ordered if label in known}


def _done_tasks(board: BoardRuns) -> list[tuple]:
    return list(
        JudgeTask.objects.filter(pk__in=board.tasks().values("pk"))
        .order_by("pk")
        .values_list(
            "pk",
            "system__name",
            "case__difficulty",
            "case__scenario__primary",
        )
    )


def _verdict_arrays(board: BoardRuns) -> np.ndarray:
    """(task id, criterion id, hit) of every verdict of the board's tasks, as one integer
    array: three small columns instead of joined labels keep the read fast at full scale."""
    rows = (
        Verdict.objects.filter(task__in=board.tasks().values("pk"))
        .order_by()
        .values_list("task_id", "criterion_id", "hit")
    )
    # The queryset's own SQL on a plain cursor: Django's per-row converters (SQLite's 0/1 to
    # bool) cost more than the read itself at 160,000 rows, and numpy wants the integers.
    sql, params = rows.query.sql_with_params()
    with connections[rows.db].cursor() as cursor:
        cursor.execute(sql, params)
        fetched = cursor.fetchall()
    flat = np.fromiter(chain.from_iterable(fetched), dtype=np.int64, count=3 * len(fetched))
    return flat.reshape(-1, 3)


def _criteria(board: BoardRuns, ids: np.ndarray) -> list[tuple]:
    """The verdicts' criteria, ordered by pk. Read through the done tasks' rubric versions (a
    subquery) rather than by listing 11,000 ids; a verdict on a criterion of another version
    would be a data error, but it costs one more query to still score it correctly."""
    fields = ("pk", "ability__label", "weight", "is_catastrophic")
    versions = JudgeTask.objects.filter(pk__in=board.tasks().values("pk")).values(
        "rubric_version_id"
    )
    found = list(
        Criterion.objects.filter(rubric_version_id__in=versions).order_by("pk").values_list(*fields)
    )
    known = np.array([row[0] for row in found], dtype=np.int64)
    missing = np.setdiff1d(np.unique(ids), known)
    if missing.size:
        found += Criterion.objects.filter(pk__in=missing.tolist()).values_list(*fields)
        found.sort(key=lambda row: row[0])
    wanted = np.isin(np.array([row[0] for row in found], dtype=np.int64), ids)
    return [row for row, keep in zip(found, wanted, strict=True) if keep]


def _row(name: str, kind: str, summary: MatrixSummary | None, failed: int) -> dict[str, Any]:
    if summary is None:
        reason = NO_CASES
        nothing = Value.undefined(reason)
        values = {field: nothing for field in SCORE_FIELDS}
        interval: list | None = None
        undefined = {field: reason for field in (*SCORE_FIELDS, "overall_95")}
        abilities, counts, categories, scenes, scene_counts, scored = {}, {}, {}, {}, {}, 0
    else:
        values = {
            "overall": summary.overall,
            "normal": summary.normal,
            "hard": summary.hard,
            "relative_decline": summary.relative_decline,
        }
        undefined = {field: v.reason for field, v in values.items() if not v.is_defined}
        ci = summary.interval
        interval = None if ci.low is None else [ci.low, ci.high]
        if ci.low is None:
            undefined["overall_95"] = ci.reason
        abilities = dict(summary.abilities)
        counts = summary.ability_case_counts
        categories = dict(summary.categories)
        scenes = {name: _number(value) for name, value in summary.scenes.items()}
        scene_counts = summary.scene_case_counts
        undefined.update(
            {f"scenes.{name}": v.reason for name, v in summary.scenes.items() if not v.is_defined}
        )
        scored = summary.cases_scored
    return {
        "system": name,
        "kind": kind,
        "is_human": kind == System.Kind.HUMAN,
        **{field: _number(value) for field, value in values.items()},
        "overall_95": interval,
        "bootstrap": {"resamples": DEFAULT_RESAMPLES, "seed": DEFAULT_SEED, "unit": "case"},
        "abilities": abilities,
        "ability_cases": counts,
        "categories": categories,
        "scenes": scenes,
        "scene_cases": scene_counts,
        "cases_scored": scored,
        "cases_failed": failed,
        "undefined": undefined,
    }


def leaderboard_rows(*, board: BoardRuns, profile: str) -> list[dict[str, Any]]:
    """One row per system of the board's runs under `profile`, best overall first.

    Scored with the vectorised `judging.scoring.matrix` (the same rules as `score_system`),
    with a 95% bootstrap interval of the overall score resampling cases. Numbers are at full
    precision (pages round them). A score that cannot be computed is None, with the reason
    under "undefined". Scenes are the cases' primary scenario labels ("" when a case has
    none). Seven queries whatever the size (one more only for verdicts on criteria outside
    their task's rubric version, a data error).
    """
    profile = Profile(profile)
    names = _run_system_names(board)
    failed = _failed_counts(board)
    tasks = _done_tasks(board)
    verdicts = _verdict_arrays(board)
    criteria = _criteria(board, verdicts[:, 1])
    labels, categories = _taxonomy_order({label for _, label, _, _ in criteria})
    column = {label: i for i, label in enumerate(labels)}

    task_ids = np.array([task[0] for task in tasks], dtype=np.int64)
    criterion_ids = np.array([c[0] for c in criteria], dtype=np.int64)
    criterion_column = np.array([column[c[1]] for c in criteria], dtype=np.int64)
    criterion_weight = np.array([c[2] or 0 for c in criteria], dtype=np.float64)
    criterion_weighted = np.array([c[2] is not None for c in criteria], dtype=bool)
    criterion_catastrophic = np.array([c[3] for c in criteria], dtype=bool)
    which = np.searchsorted(criterion_ids, verdicts[:, 1])
    matrix = ability_matrix(
        row=np.searchsorted(task_ids, verdicts[:, 0]),
        ability=criterion_column[which],
        weight=criterion_weight[which],
        weighted=criterion_weighted[which],
        catastrophic=criterion_catastrophic[which],
        hit=verdicts[:, 2].astype(bool),
        n_rows=len(tasks),
        n_abilities=len(labels),
        profile=profile,
    )

    by_system: dict[str, list[int]] = {}
    for index, task in enumerate(tasks):
        by_system.setdefault(task[1], []).append(index)
    everyone = list(dict.fromkeys([*names, *by_system, *failed]))
    kinds = dict(System.objects.filter(name__in=everyone).values_list("name", "kind"))
    column_categories = [categories.get(label, ("", (0, 0)))[0] for label in labels]

    blocks = {
        name: (matrix.scores[rows_of], matrix.present[rows_of])
        for name, rows_of in (
            (name, np.array(picked, dtype=np.int64)) for name, picked in by_system.items()
        )
    }
    intervals = dict(zip(blocks, overall_bootstraps(list(blocks.values())), strict=True))

    rows = []
    for name in everyone:
        picked = by_system.get(name)
        summary = None
        if picked:
            summary = summarise(
                *blocks[name],
                abilities=labels,
                categories=column_categories,
                difficulty=[tasks[i][2] for i in picked],
                scene=[tasks[i][3] or "" for i in picked],
                interval=intervals[name],
            )
        rows.append(
            _row(name, kinds.get(name, System.Kind.LLM.value), summary, failed.get(name, 0))
        )
    # Undefined overall scores go last; ties keep a stable, readable order by name.
    rows.sort(key=lambda row: (row["overall"] is None, -(row["overall"] or 0.0), row["system"]))
    return rows


def heatmap_columns(*, labels: Iterable[str]) -> list[dict[str, Any]]:
    """The ability labels grouped by category in taxonomy order, with display names, for the
    heatmap's two header rows. Labels the taxonomy does not know form a last group. One
    query."""
    wanted = list(dict.fromkeys(labels))
    known = {
        ability.label: ability
        for ability in Ability.objects.filter(label__in=wanted).select_related("category")
    }
    ordered = sorted(
        wanted,
        key=lambda label: (
            label not in known,
            (known[label].category.position, known[label].category.code, known[label].position)
            if label in known
            else (0, "", 0),
            label,
        ),
    )
    groups: list[dict[str, Any]] = []
    for label in ordered:
        ability = known.get(label)
        key = ability.category.name_en if ability else ""
        name = ability.category.name if ability else ""
        if not groups or groups[-1]["key"] != key:
            groups.append({"key": key, "name": name, "abilities": []})
        groups[-1]["abilities"].append({"label": label, "name": ability.name if ability else label})
    return groups
