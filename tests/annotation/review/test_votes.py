import pytest

from annotation.models import Assignment, ExpertProfile, Flag, Vote
from annotation.selectors.review import calibration_result, item_criteria, round_consensus
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import (
    VoteInput,
    VoteRefused,
    assignment_autosave,
    assignment_submit,
    flag_raise,
    reference_answers_set,
)
from tests.annotation.review.conftest import assigned_minutes_ago

pytestmark = pytest.mark.django_db


def answers(assignment, pattern):
    return [
        VoteInput(c.pk, hit, f"理由{i}")
        for i, (c, hit) in enumerate(
            zip(item_criteria(assignment=assignment), pattern, strict=True)
        )
    ]


def test_autosave_keeps_partial_work_and_counts_active_time(review_round, experts):
    assignment = assignment_next(expert=experts[0], round_=review_round)
    assigned_minutes_ago(assignment)
    partial = answers(assignment, [True, None, None, None])
    saved = assignment_autosave(
        assignment=assignment, votes=partial, comment="", active_seconds=9999
    )
    assert saved.active_seconds == 120  # one save cannot add more than two minutes
    saved = assignment_autosave(assignment=saved, votes=partial, comment="x", active_seconds=30)
    assert saved.status == "in_progress" and saved.started is not None
    assert saved.active_seconds <= 120 + 1  # nor more than the clock ran since the last save
    assert saved.draft["votes"][str(partial[0].criterion_id)] == {"hit": True, "note": "理由0"}
    assert not Vote.objects.exists()


def test_submit_needs_every_criterion_and_records_one_set(review_round, experts):
    assignment = assignment_next(expert=experts[0], round_=review_round)
    with pytest.raises(VoteRefused, match=r"missing: 2, 4"):
        assignment_submit(
            assignment=assignment,
            votes=answers(assignment, [True, None, False, None]),
            comment="",
            active_seconds=5,
            base_revision=0,
        )
    full = answers(assignment, [True, False, False, True])
    done, recorded = assignment_submit(
        assignment=assignment, votes=full, comment="整体不错", active_seconds=5, base_revision=0
    )
    assert recorded and done.revision == 1 and done.status == "submitted"
    _, recorded = assignment_submit(
        assignment=assignment, votes=full, comment="", active_seconds=5, base_revision=0
    )
    assert not recorded  # the double click
    assert Vote.objects.filter(assignment=assignment).count() == 4


def test_a_revision_keeps_every_earlier_vote(review_round, experts):
    assignment = assignment_next(expert=experts[0], round_=review_round)
    assignment_submit(
        assignment=assignment,
        votes=answers(assignment, [True, True, True, True]),
        comment="",
        active_seconds=1,
        base_revision=0,
    )
    assignment_submit(
        assignment=assignment,
        votes=answers(assignment, [False, True, True, True]),
        comment="",
        active_seconds=1,
        base_revision=1,
    )
    votes = Vote.objects.filter(assignment=assignment)
    assert votes.count() == 8
    assert sorted(votes.filter(criterion__position=1).values_list("revision", "hit")) == [
        (1, True),
        (2, False),
    ]


def test_closed_rounds_refuse_changes(review_round, experts):
    assignment = assignment_next(expert=experts[0], round_=review_round)
    review_round.status = "closed"
    review_round.save()
    assignment.refresh_from_db()
    with pytest.raises(VoteRefused, match="closed"):
        assignment_autosave(assignment=assignment, votes=[], comment="", active_seconds=1)


def test_consensus_is_the_majority_and_an_even_split_is_a_tie(review_data, experts):
    benchmark, systems = review_data
    round_ = round_open(
        benchmark=benchmark,
        name="two",
        systems=systems[:1],
        experts=experts[:2],
        fraction=0.1,
        raters_per_item=2,
    )
    patterns = {experts[0]: [True, True, False, False], experts[1]: [True, False, False, True]}
    for expert, pattern in patterns.items():
        a = assignment_next(expert=expert, round_=round_)
        assignment_submit(
            assignment=a, votes=answers(a, pattern), comment="", active_seconds=1, base_revision=0
        )
    consensus = sorted(round_consensus(round_=round_).values(), key=lambda u: u.criterion_id)
    assert [(u.outcome, u.label) for u in consensus] == [
        ("majority", True),
        ("tie", None),
        ("majority", False),
        ("tie", None),
    ]


def test_calibration_releases_an_expert_at_the_threshold(review_data, experts):
    benchmark, systems = review_data
    calibration = round_open(
        benchmark=benchmark,
        name="calibration",
        systems=systems[:1],
        experts=experts[:1],
        fraction=0.1,
        raters_per_item=1,
        is_calibration=True,
    )
    item = calibration.items.get()
    criteria = list(item.rubric_version.criteria.order_by("position"))
    reference_answers_set(
        item=item, answers={c.pk: (c.position % 2 == 1, f"因为{c.position}") for c in criteria}
    )
    a = assignment_next(expert=experts[0], round_=calibration)
    assignment_submit(
        assignment=a,
        votes=answers(a, [True, False, True, True]),
        comment="",
        active_seconds=1,
        base_revision=0,
    )
    result = calibration_result(expert=experts[0], round_=calibration)
    assert result.complete and result.agreement == 0.75 and not result.passed
    assert result.details[3]["explanation"] == "因为4"
    assert not ExpertProfile.objects.filter(user=experts[0], calibrated=True).exists()
    assignment_submit(
        assignment=Assignment.objects.get(pk=a.pk),
        votes=answers(a, [True, False, True, False]),
        comment="",
        active_seconds=1,
        base_revision=1,
    )
    assert calibration_result(expert=experts[0], round_=calibration).passed
    assert ExpertProfile.objects.get(user=experts[0]).calibrated


def test_flags_need_a_reason(review_round, experts):
    a = assignment_next(expert=experts[0], round_=review_round)
    with pytest.raises(VoteRefused):
        flag_raise(assignment=a, reason="bored")
    flag_raise(assignment=a, reason="broken_text", note="乱码")
    assert Flag.objects.get().reason == "broken_text"
