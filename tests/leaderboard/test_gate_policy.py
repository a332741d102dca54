"""The gate policy as a table: each row a situation, the decision the policy must take and
the evaluation it must name. Pure: no database."""

from datetime import UTC, datetime, timedelta

import pytest

from leaderboard.gate.policy import (
    Board,
    Evaluation,
    Refusal,
    deciding_evaluation,
    publish_decision,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(days: float) -> datetime:
    return T0 + timedelta(days=days)


def ev(id: int, version: int, round_id: int, opened: float, recorded: float, passed: bool):
    return Evaluation(id, version, round_id, at(opened), at(recorded), passed)


V1, V2 = 1, 2
ONE = Board(judge_versions=frozenset({V1}), finished=True)

ROWS = [
    # (why, board, evaluations, rubric changes per round, allowed to change, expected)
    ("no runs", Board(frozenset(), True), [], {}, False, (Refusal.NO_RUNS, None)),
    (
        "runs of two versions",
        Board(frozenset({V1, V2}), True),
        [ev(1, V1, 10, 0, 1, True)],
        {},
        False,
        (Refusal.MIXED_VERSIONS, None),
    ),
    (
        "a run still going",
        Board(frozenset({V1}), False),
        [ev(1, V1, 10, 0, 1, True)],
        {},
        False,
        (Refusal.RUNS_UNFINISHED, None),
    ),
    ("never evaluated", ONE, [], {}, False, (Refusal.NOT_EVALUATED, None)),
    (
        "only another version was evaluated",
        ONE,
        [ev(1, V2, 10, 0, 1, True)],
        {},
        False,
        (Refusal.NOT_EVALUATED, None),
    ),
    ("passed", ONE, [ev(1, V1, 10, 0, 1, True)], {}, False, (None, 1)),
    ("failed", ONE, [ev(1, V1, 10, 0, 1, False)], {}, False, (Refusal.FAILED, 1)),
    (
        "a newer round passes after an older one failed",
        ONE,
        [ev(1, V1, 10, 0, 1, False), ev(2, V1, 11, 2, 3, True)],
        {},
        False,
        (None, 2),
    ),
    (
        "a newer round fails after an older one passed",
        ONE,
        [ev(1, V1, 10, 0, 1, True), ev(2, V1, 11, 2, 3, False)],
        {},
        False,
        (Refusal.FAILED, 2),
    ),
    (
        "the older round recorded again, passing, after the newer one failed",
        ONE,
        [ev(1, V1, 10, 0, 1, True), ev(2, V1, 11, 2, 3, False), ev(3, V1, 10, 0, 4, True)],
        {},
        False,
        (Refusal.FAILED, 2),
    ),
    (
        "a pass recorded later on the same round does not overturn its failure",
        ONE,
        [ev(1, V1, 10, 0, 1, False), ev(2, V1, 10, 0, 2, True)],
        {},
        False,
        (Refusal.FAILED, 1),
    ),
    (
        "rounds count by opening, not by when they were recorded",
        ONE,
        [ev(1, V1, 11, 5, 6, True), ev(2, V1, 10, 0, 7, False)],
        {},
        False,
        (None, 1),
    ),
    (
        "another version's failure does not count",
        ONE,
        [ev(1, V1, 10, 0, 1, True), ev(2, V2, 11, 2, 3, False)],
        {},
        False,
        (None, 1),
    ),
    (
        "rubrics changed since the deciding round",
        ONE,
        [ev(1, V1, 10, 0, 1, True)],
        {10: 3},
        False,
        (Refusal.RUBRICS_CHANGED, 1),
    ),
    (
        "rubrics changed, and the benchmark allows it",
        ONE,
        [ev(1, V1, 10, 0, 1, True)],
        {10: 3},
        True,
        (None, 1),
    ),
    (
        "rubrics changed since an older round only",
        ONE,
        [ev(1, V1, 10, 0, 1, False), ev(2, V1, 11, 2, 3, True)],
        {10: 5, 11: 0},
        False,
        (None, 2),
    ),
]


@pytest.mark.parametrize(
    ("board", "evaluations", "changes", "allow", "expected"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_the_policy_decides_as_the_table_says(board, evaluations, changes, allow, expected):
    decision = publish_decision(
        board, evaluations, rubric_changes=changes, allow_rubric_changes=allow
    )
    refusal, evaluation = expected
    assert decision.refusal == refusal
    assert decision.allowed == (refusal is None)
    assert (decision.evaluation.id if decision.evaluation else None) == evaluation
    if evaluation is not None:
        assert decision.rubric_changes == changes.get(decision.evaluation.round_id, 0)


def test_the_order_evaluations_are_given_in_does_not_matter():
    evaluations = [ev(1, V1, 10, 0, 1, True), ev(2, V1, 11, 2, 3, False), ev(3, V1, 10, 0, 4, True)]
    for order in (evaluations, evaluations[::-1], evaluations[1:] + evaluations[:1]):
        assert deciding_evaluation(order, V1).id == 2


def test_a_drift_flagged_after_the_deciding_evaluation_refuses_until_a_newer_one():
    passed = [ev(1, V1, 10, 0, 1, True)]
    refused = publish_decision(
        ONE, passed, rubric_changes={}, allow_rubric_changes=False, drifted_since=at(2)
    )
    assert refused.refusal == Refusal.JUDGE_DRIFTED and refused.drifted_since == at(2)
    assert refused.evaluation.id == 1
    newer = [*passed, ev(2, V1, 10, 0, 3, True)]
    allowed = publish_decision(
        ONE, newer, rubric_changes={}, allow_rubric_changes=False, drifted_since=at(2)
    )
    assert allowed.allowed and allowed.evaluation.id == 2
    # A failure still says it failed: the drift adds nothing to a refusal already due.
    failed = publish_decision(
        ONE,
        [ev(1, V1, 10, 0, 1, False)],
        rubric_changes={},
        allow_rubric_changes=False,
        drifted_since=at(2),
    )
    assert failed.refusal == Refusal.FAILED
