"""The gate's chance-corrected floor: kappa and AC1 as published, and a cluster bootstrap
lower bound that clustering widens."""

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from leaderboard.stats import gwet_ac1_pair
from leaderboard.stats.chance_floor import AC1, KAPPA, chance_lower_bound, chance_statistic


def _units(table):
    """Judge and human verdicts of a 2x2 table [[both, judge only], [human only, neither]]."""
    (a, b), (c, d) = table
    judge = [True] * a + [True] * b + [False] * c + [False] * d
    human = [True] * a + [False] * b + [True] * c + [False] * d
    return judge, human


def test_kappa_matches_the_published_example_and_statsmodels():
    judge, human = _units([[20, 5], [10, 15]])
    assert chance_statistic(judge, human, KAPPA) == pytest.approx(0.4)
    reference = cohens_kappa(np.array([[20, 5], [10, 15]])).kappa
    assert chance_statistic(judge, human, KAPPA) == pytest.approx(reference)


def test_ac1_matches_the_reports_own_statistic():
    judge, human = _units([[80, 6], [4, 10]])
    assert chance_statistic(judge, human, AC1) == pytest.approx(gwet_ac1_pair(judge, human).value)


def test_clustering_lowers_the_bound():
    rng = np.random.default_rng(7)
    judge = rng.random(400) < 0.6
    human = np.where(rng.random(400) < 0.85, judge, ~judge)
    independent = chance_lower_bound(judge, human, list(range(400)), statistic=KAPPA)
    # The same verdicts in 40 responses of 10 units that always agree or disagree together.
    judge_c = np.repeat(judge[:40], 10)
    human_c = np.repeat(human[:40], 10)
    clustered = chance_lower_bound(judge_c, human_c, np.repeat(np.arange(40), 10), statistic=KAPPA)
    assert independent.lower < independent.value
    assert clustered.value - clustered.lower > independent.value - independent.lower


def test_undefined_is_said_not_faked():
    assert chance_lower_bound([], [], [], statistic=KAPPA).reason == "no_judged_units"
    one_category = chance_lower_bound([True] * 5, [True] * 5, range(5), statistic=KAPPA)
    assert one_category.value is None and one_category.reason == "kappa_one_category"
    assert chance_lower_bound([True, False], [True, False], [1, 1], statistic=KAPPA).lower is None
    with pytest.raises(ValueError):
        chance_statistic([True], [True], "alpha")
