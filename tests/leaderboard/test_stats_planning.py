"""How many more units the gate's lower bound needs (pure, no database)."""

import pytest

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


def test_design_effect_of_independent_and_clustered_units():
    from leaderboard.stats.planning import design_effect

    # Every item agrees on half its units: no clustering beyond chance.
    assert design_effect([5, 5, 5, 5], [10, 10, 10, 10]) == pytest.approx(1.0)
    # Items agree on all or nothing: the ICC is 1 and the effect is k = 10.
    assert design_effect([10, 0, 10, 0], [10, 10, 10, 10]) == pytest.approx(10.0)
    assert design_effect([3], [10]) == 1.0


def test_fixed_sample_items_for_the_lower_bound_rule():
    from leaderboard.stats.intervals import wilson_interval
    from leaderboard.stats.planning import items_for_fixed_lower_bound

    items = items_for_fixed_lower_bound(expected=0.85, threshold=0.75, units_per_item=10)
    assert items is not None and 5 < items < 50
    # At that size the gate passes in about 80% of samples drawn at 0.85 (the count is
    # discrete, so a little either way).
    import numpy as np

    n = items * 10
    counts = np.random.default_rng(4).binomial(n, 0.85, size=4000)
    passed = np.mean([wilson_interval(int(c), n).low >= 0.75 for c in counts])
    assert 0.75 <= passed <= 0.9
    # Clustering multiplies it; an expected agreement at the threshold is never enough.
    clustered = items_for_fixed_lower_bound(
        expected=0.85, threshold=0.75, units_per_item=10, deff=2.5
    )
    assert clustered >= 2 * items
    assert items_for_fixed_lower_bound(expected=0.75, threshold=0.75, units_per_item=10) is None
