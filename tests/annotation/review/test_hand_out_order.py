"""The order items are handed out in: a seeded random order per round, never the order the
responses were imported in (which is system by system, so experts met one system's
answers in a block and could learn to tell them apart)."""

import itertools

import pytest

from annotation.models import Assignment
from annotation.review_sampling import hand_out_order
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_extend, round_open
from annotation.services.review_votes import VoteInput, assignment_submit, reference_answers_set

pytestmark = pytest.mark.django_db


def hand_out_all(round_, expert) -> list:
    """Every item the expert is handed, in order, submitting each before asking again."""
    items = []
    while (assignment := assignment_next(expert=expert, round_=round_)) is not None:
        items.append(assignment.item)
        Assignment.objects.filter(pk=assignment.pk).update(status="submitted")
    return items


def one_rater_round(review_data, expert, *, name: str, seed: int):
    benchmark, systems = review_data
    return round_open(
        benchmark=benchmark,
        name=name,
        systems=systems,
        experts=[expert],
        fraction=1.0,
        seed=seed,
        raters_per_item=1,
    )


def same_system_neighbours(items) -> int:
    return sum(
        1 for a, b in itertools.pairwise(items) if a.response.system_id == b.response.system_id
    )


def test_items_are_handed_out_in_a_seeded_order_not_in_system_blocks(review_data, experts):
    round_ = one_rater_round(review_data, experts[0], name="order", seed=7)
    handed = hand_out_all(round_, experts[0])
    assert len(handed) == 30
    # An expert not known to be accurate on reference items takes the cases as the seeded
    # order has them, hard ones included: hard cases held back to the end would hold back
    # the settled prefix the sequential gate counts in.
    ranks = hand_out_order([item.response_id for item in handed], seed=7)
    responses = [item.response_id for item in handed]
    assert responses == sorted(responses, key=ranks.get)
    ids = [item.pk for item in handed]
    assert ids != sorted(ids)  # not id (import) order
    assert {i.response.case.difficulty for i in handed[:10]} == {"normal", "hard"}
    # Import order puts one system's answers side by side; the hand-out mixes them.
    by_id = sorted(handed, key=lambda item: item.pk)
    assert same_system_neighbours(handed) < same_system_neighbours(by_id) / 2


def test_the_order_is_reproducible_from_the_seed_and_differs_between_seeds(review_data, experts):
    first = hand_out_all(one_rater_round(review_data, experts[0], name="a", seed=11), experts[0])
    again = hand_out_all(one_rater_round(review_data, experts[1], name="b", seed=11), experts[1])
    other = hand_out_all(one_rater_round(review_data, experts[2], name="c", seed=12), experts[2])
    assert [i.response_id for i in first] == [i.response_id for i in again]
    assert [i.response_id for i in first] != [i.response_id for i in other]
    assert sorted(i.response_id for i in first) == sorted(i.response_id for i in other)


def in_rank_order_per_difficulty(handed, ranks) -> bool:
    """Whether the items came in rank order within each difficulty (the expert's
    preference by difficulty comes first)."""
    for difficulty in ("normal", "hard"):
        group = [i.response_id for i in handed if i.response.case.difficulty == difficulty]
        if group != sorted(group, key=ranks.get):
            return False
    return True


def test_consecutive_hand_outs_of_a_three_rater_round_follow_the_seeded_order(
    review_round, experts
):
    handed = hand_out_all(review_round, experts[0])
    assert len(handed) == 9
    ranks = hand_out_order([i.response_id for i in handed], seed=review_round.seed)
    assert in_rank_order_per_difficulty(handed, ranks)
    by_id = sorted(handed, key=lambda item: item.pk)
    assert not in_rank_order_per_difficulty(by_id, ranks)


def test_items_added_by_extending_a_round_are_shuffled_too(review_data, experts):
    benchmark, systems = review_data
    round_ = round_open(
        benchmark=benchmark,
        name="grow",
        systems=systems,
        experts=[experts[0]],
        fraction=0.3,
        seed=5,
        raters_per_item=1,
    )
    first = list(round_.items.values_list("response_id", flat=True))
    assert round_extend(round_=round_, fraction=1.0) == 21
    added = set(round_.items.values_list("response_id", flat=True)) - set(first)
    # The first items keep their places; the new ones are shuffled among themselves after.
    ranks = {
        **hand_out_order(first, seed=5),
        **hand_out_order(added, seed=5, start=len(first)),
    }
    handed = hand_out_all(round_, experts[0])
    assert len(handed) == 30 and in_rank_order_per_difficulty(handed, ranks)
    later = [i for i in handed if i.response_id in added]
    assert not in_rank_order_per_difficulty(sorted(later, key=lambda i: i.pk), ranks)


def test_hand_out_order_is_a_seeded_permutation():
    ids = list(range(100, 160))
    ranks = hand_out_order(ids, seed=3)
    assert sorted(ranks) == ids and sorted(ranks.values()) == list(range(60))
    assert ranks == hand_out_order(list(reversed(ids)), seed=3)  # the input order is not used
    assert ranks != hand_out_order(ids, seed=4)
    assert sorted(ranks, key=ranks.get) != ids
    later = hand_out_order([1, 2, 3], seed=3, start=60)
    assert sorted(later.values()) == [60, 61, 62]


def test_an_expert_accurate_on_reference_items_takes_the_hard_cases_first(review_data, experts):
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
    reference_answers_set(item=item, answers={c.pk: (True, "") for c in criteria})
    first = assignment_next(expert=experts[0], round_=calibration)
    assignment_submit(
        assignment=first,
        votes=[VoteInput(c.pk, True) for c in item_criteria(assignment=first)],
        comment="",
        active_seconds=1,
        base_revision=0,
    )
    handed = hand_out_all(one_rater_round(review_data, experts[0], name="hard", seed=7), experts[0])
    difficulties = [i.response.case.difficulty for i in handed]
    assert difficulties == sorted(difficulties, key=lambda d: d != "hard")  # hard, then normal
