"""Ranks account for uncertainty: overlapping intervals share a rank band (pure)."""

from leaderboard.stats.ranks import band_text, rank_bands


def test_overlapping_intervals_share_places_and_separated_ones_do_not():
    points = [80.0, 78.0, 76.0, 50.0]
    intervals = [(74.0, 86.0), (72.0, 84.0), (70.0, 82.0), (45.0, 55.0)]
    bands = rank_bands(points, intervals)
    assert bands == [(1, 3), (1, 3), (1, 3), (4, 4)]
    assert [band_text(b) for b in bands] == ["1–3", "1–3", "1–3", "4"]


def test_a_chain_of_overlaps_widens_only_where_intervals_touch():
    points = [90.0, 80.0, 70.0]
    intervals = [(85.0, 95.0), (75.0, 86.0), (65.0, 74.0)]
    assert rank_bands(points, intervals) == [(1, 2), (1, 2), (3, 3)]


def test_without_intervals_or_scores():
    assert rank_bands([3.0, 2.0, None], [None, None, None]) == [(1, 1), (2, 2), None]
    assert band_text(None) == "—"
