"""How many more units the gate's lower bound needs (pure, no database)."""

from leaderboard.stats import wilson_interval
from leaderboard.stats.planning import items_for_units, units_needed_for_lower_bound


def test_a_bound_already_above_the_threshold_needs_nothing():
    assert units_needed_for_lower_bound(95, 100, 0.75) == 0


def test_the_answer_is_the_first_size_at_which_the_bound_reaches_the_threshold():
    # 48 of 60 agree (80%): the lower bound is about 0.68.
    more = units_needed_for_lower_bound(48, 60, 0.75)
    assert more is not None and more > 0
    total = 60 + more
    assert wilson_interval(round(0.8 * total), total).low >= 0.75
    before = total - 1
    assert wilson_interval(round(0.8 * before), before).low < 0.75
    # A hand check at this share: 80% on 260 units gives a lower bound just under 0.75,
    # and on about 280 just over.
    assert 230 < total < 320


def test_agreement_at_or_below_the_threshold_can_never_pass_by_more_of_the_same():
    assert units_needed_for_lower_bound(48, 100, 0.75) is None
    assert units_needed_for_lower_bound(75, 100, 0.75) is None
    assert units_needed_for_lower_bound(0, 0, 0.75) is None


def test_units_become_responses_at_the_criteria_per_response():
    assert items_for_units(10, 4.0) == 3
    assert items_for_units(0, 4.0) == 0
