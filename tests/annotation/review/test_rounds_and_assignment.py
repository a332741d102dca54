import pytest

from annotation.models import Assignment, ReviewItem
from annotation.review_sampling import Unit, stratified_sample
from annotation.services.review_assignment import (
    AssignmentRefused,
    assignment_next,
    assignment_reassign,
)
from annotation.services.review_rounds import RoundInvalid, round_extend, round_open

pytestmark = pytest.mark.django_db


def test_sampling_is_stratified_and_reproducible():
    units = [Unit(i, ("hard" if i % 4 == 0 else "normal", i % 3)) for i in range(1, 101)]
    first = stratified_sample(units, fraction=0.3, seed=7)
    assert first == stratified_sample(units, fraction=0.3, seed=7)
    assert first != stratified_sample(units, fraction=0.3, seed=8)
    assert len(first) == 30
    hard = [i for i in first if i % 4 == 0]
    assert 6 <= len(hard) <= 8  # a quarter of the units are hard: about a quarter of 30
    more = stratified_sample(units, fraction=0.5, seed=8, exclude=set(first))
    assert len(more) == 20 and not set(more) & set(first)


def test_opening_a_round_samples_30_percent_and_freezes_rubric_versions(review_round):
    items = ReviewItem.objects.filter(round=review_round)
    assert items.count() == 9  # 30% of 30 responses
    systems = {item.response.system_id for item in items}
    assert len(systems) == 3  # every system is in the sample
    for item in items:
        assert item.rubric_version == item.response.case.rubric_versions.get()
        assert len(item.code) == 8
    assert len({item.code for item in items}) == 9


def test_round_rules_are_checked(review_data, experts):
    benchmark, systems = review_data
    with pytest.raises(RoundInvalid, match="at least 3 experts"):
        round_open(benchmark=benchmark, name="R", systems=systems, experts=experts[:2])
    with pytest.raises(RoundInvalid, match="fraction"):
        round_open(benchmark=benchmark, name="R", systems=systems, experts=experts, fraction=0)
    round_open(benchmark=benchmark, name="R", systems=systems, experts=experts)
    with pytest.raises(RoundInvalid, match="already exists"):
        round_open(benchmark=benchmark, name="R", systems=systems, experts=experts)


def test_a_round_can_be_extended_without_touching_its_items(review_round):
    before = set(review_round.items.values_list("pk", flat=True))
    added = round_extend(round_=review_round, fraction=0.5)
    assert added == 6
    assert before <= set(review_round.items.values_list("pk", flat=True))


def test_next_item_gives_each_item_to_at_most_three_different_experts(review_round, experts):
    pool = experts[:3]
    taken = []
    while True:
        progressed = False
        for expert in pool:
            assignment = assignment_next(expert=expert, round_=review_round)
            if assignment is None:
                continue
            progressed = True
            taken.append((assignment.item_id, expert.pk))
            Assignment.objects.filter(pk=assignment.pk).update(status="submitted")
        if not progressed:
            break
    assert len(taken) == len(set(taken)) == 27  # 9 items x 3 raters, never twice
    for item in review_round.items.all():
        assert item.assignments.count() == 3 and item.assigned_count == 3
    shares = [sum(1 for _, e in taken if e == expert.pk) for expert in pool]
    assert shares == [9, 9, 9]


def test_next_item_returns_the_unfinished_one_first(review_round, experts):
    first = assignment_next(expert=experts[0], round_=review_round)
    assert assignment_next(expert=experts[0], round_=review_round) == first


def test_outsiders_and_paused_rounds_are_refused(review_round, experts):
    with pytest.raises(AssignmentRefused, match="not in this round"):
        assignment_next(expert=experts[3], round_=review_round)
    review_round.status = "paused"
    review_round.save()
    with pytest.raises(AssignmentRefused, match="not open"):
        assignment_next(expert=experts[0], round_=review_round)


def test_an_unstarted_item_can_be_reassigned_by_hand(review_round, experts):
    review_round.experts.add(experts[3])
    assignment = assignment_next(expert=experts[0], round_=review_round)
    moved = assignment_reassign(assignment=assignment, to_expert=experts[3])
    assert moved.expert == experts[3]
    Assignment.objects.filter(pk=moved.pk).update(status="in_progress")
    moved.refresh_from_db()
    with pytest.raises(AssignmentRefused, match="nobody has started"):
        assignment_reassign(assignment=moved, to_expert=experts[1])


def test_many_tiny_strata_do_not_favour_one_difficulty():
    # One unit per stratum: every remainder is equal, so names must not decide the draw.
    units = [Unit(i, ("hard" if i % 3 == 0 else "normal", f"scene{i}", i % 3)) for i in range(90)]
    chosen = stratified_sample(units, fraction=0.3, seed=20251)
    hard = sum(1 for i in chosen if i % 3 == 0)
    assert len(chosen) == 27 and 4 <= hard <= 16  # about a third, not all 27


def test_an_expert_without_specialities_gets_the_item_closest_to_complete(review_round, experts):
    last = review_round.items.order_by("-pk").first()
    ReviewItem.objects.filter(pk=last.pk).update(assigned_count=2)
    assignment = assignment_next(expert=experts[0], round_=review_round)
    assert assignment.item_id == last.pk
