"""A board's verdicts scored under the `healthbench` profile (judging.scoring.healthbench).

Each judged response is one graded example: its criteria with their points (the criterion's
weight) and their axis (the criterion's ability), and the example's tags read back from the
case's scenario (the theme, then the other example tags, as annotation's HealthBench import
stores them). The board's tasks are those that count on the leaderboard: per system and case,
the one that finished last.
"""

from collections.abc import Iterator
from itertools import groupby

from judging.models import Verdict
from judging.scoring.healthbench import (
    DEFAULT_SEED,
    N_RESAMPLES,
    GradedCriterion,
    GradedExample,
    HealthBenchScores,
    score_healthbench,
)
from leaderboard.boards.selectors.runs import BoardRuns

CHUNK_SIZE = 5000
_FIELDS = (
    "task__response__system__name",
    "task_id",
    "task__response__case__external_id",
    "task__response__case__scenario__primary",
    "task__response__case__scenario__secondary",
    "criterion__weight",
    "criterion__ability__label",
    "hit",
)


class NotScorable(ValueError):
    """A board that the healthbench profile cannot score (a criterion without points)."""


def _rows(board: BoardRuns) -> Iterator[tuple]:
    return (
        Verdict.objects.filter(task__in=board.tasks().values("pk"))
        .order_by("task__response__system__name", "task_id", "criterion__position")
        .values_list(*_FIELDS)
        .iterator(chunk_size=CHUNK_SIZE)
    )


def _example(rows: list[tuple]) -> GradedExample:
    _system, _task, case_id, primary, secondary = rows[0][:5]
    tags = tuple(t for t in [primary or "", *(secondary or "").split()] if t)
    criteria = []
    for row in rows:
        weight, ability, hit = row[5:]
        if weight is None:
            raise NotScorable(
                f"case {case_id!r} has a criterion without points; the healthbench profile "
                "scores points only"
            )
        criteria.append(GradedCriterion(points=weight, tags=(ability,), met=hit))
    return GradedExample(example_id=case_id, tags=tags, criteria=tuple(criteria))


def healthbench_board_scores(
    *, board: BoardRuns, seed: int = DEFAULT_SEED, n_resamples: int = N_RESAMPLES
) -> dict[str, HealthBenchScores]:
    """The healthbench profile's scores of each system of the board, by system name."""
    examples: dict[str, list[GradedExample]] = {}
    for (system, _task), rows in groupby(_rows(board), key=lambda row: row[:2]):
        examples.setdefault(system, []).append(_example(list(rows)))
    return {
        system: score_healthbench(graded, seed=seed, n_resamples=n_resamples)
        for system, graded in examples.items()
    }
