"""Where a run's added anchors go among its own tasks: at places drawn from the run's seed,
its own tasks in their order, the anchors shuffled; the same seed, the same run order."""

import pytest

from judging.anchor_order import anchor_places, interleave


def test_a_run_keeps_its_own_order_and_spreads_the_anchors_by_its_seed():
    own, added = list(range(100)), [f"a{i}" for i in range(30)]
    order = interleave(own, added, seed=7)
    assert [row for row, mine in order if mine] == own
    assert sorted(row for row, mine in order if not mine) == sorted(added)
    assert [i for i, (_row, mine) in enumerate(order) if not mine] == anchor_places(
        own=100, added=30, seed=7
    )
    assert order == interleave(own, added, seed=7)
    assert order != interleave(own, added, seed=8)
    # Spread through the run, not a block: anchors in each third of it.
    places = anchor_places(own=100, added=30, seed=7)
    assert all(any(lo <= p < lo + 43 for p in places) for lo in (0, 43, 86))
    # Shuffled: not in the set's order (a fixed order would say which response is which).
    assert [row for row, mine in order if not mine] != added


def test_a_run_without_anchors_is_left_as_it_is():
    assert interleave(["x", "y"], [], seed=3) == [("x", True), ("y", True)]
    assert anchor_places(own=5, added=0, seed=1) == []
    assert [mine for _row, mine in interleave([], ["a", "b"], seed=3)] == [False, False]


def test_anchor_places_of_a_run_refuse_negative_counts():
    with pytest.raises(ValueError, match="not negative"):
        anchor_places(own=-1, added=2, seed=1)
