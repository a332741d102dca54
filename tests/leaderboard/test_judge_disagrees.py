"""The disagreement browser's filter follows the report's rule: the judge against the human
majority, with ties, units without votes and missing verdicts left out."""

import random

from annotation.consensus import majority
from leaderboard.report.agreement import Unit, agreement_report, judge_disagrees


def _units(seed: int) -> list[Unit]:
    rng = random.Random(seed)
    units = []
    for i in range(300):
        votes = tuple(
            (f"E{rng.randrange(4)}", rng.random() < 0.5) for _ in range(rng.choice([0, 1, 2, 3, 3]))
        )
        judge = rng.choice([None, True, False, False])
        units.append(Unit(i, f"c{i // 10}", i, "a", "cat", "normal", "s", "sys", judge, votes))
    return units


def test_disagreements_are_the_units_whose_judge_differs_from_a_majority():
    for seed in range(20):
        units = _units(seed)
        expected = []
        for index, unit in enumerate(units):
            verdict = majority([hit for _, hit in unit.votes])
            if unit.judge is not None and verdict.is_majority and verdict.label != unit.judge:
                expected.append(index)
        assert judge_disagrees(units) == expected
        confusion = agreement_report(units, resamples=10).confusion
        assert len(expected) == confusion.judge_only + confusion.human_only


def test_no_units_no_disagreements():
    assert judge_disagrees([]) == []
