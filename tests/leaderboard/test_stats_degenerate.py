"""Degenerate data never gives NaN or an exception: a value, or undefined with a reason."""

import math

import numpy as np
import pytest

from leaderboard.stats import (
    Stat,
    agreement_with_others,
    binary_confusion,
    cluster_bootstrap_agreement,
    cohens_kappa,
    fleiss_kappa,
    fleiss_kappa_from_ratings,
    gwet_ac1,
    gwet_ac1_pair,
    krippendorff_alpha,
    pabak,
    pairwise_agreement,
    percent_agreement,
    wilson_interval,
)

PAIRWISE = [percent_agreement, cohens_kappa, gwet_ac1_pair, pabak]
AMONG_RATERS = [krippendorff_alpha, gwet_ac1, pairwise_agreement]


def check(stat: Stat) -> Stat:
    assert isinstance(stat, Stat)
    if stat.value is None:
        assert isinstance(stat.reason, str) and stat.reason
    else:
        assert math.isfinite(stat.value) and stat.reason is None
    return stat


def test_empty_input_is_undefined_everywhere():
    for measure in PAIRWISE:
        assert check(measure([], [])).reason == "no_judged_units"
    for measure in AMONG_RATERS:
        for empty in ([], [[]], [[], []]):
            assert check(measure(empty)).value is None
    assert check(fleiss_kappa([])).reason == "no_units"
    assert check(fleiss_kappa_from_ratings([])).reason == "no_units"
    assert check(fleiss_kappa_from_ratings([[], []])).value is None
    assert agreement_with_others([]) == []
    for result in agreement_with_others([[], []]):
        assert result.rated == 0 and check(result.agreement).value is None
    confusion = binary_confusion([], [])
    for stat in (confusion.sensitivity, confusion.specificity, confusion.prevalence):
        assert check(stat).value is None


def test_all_one_value_between_judge_and_humans():
    judge = human = [True] * 5
    assert check(percent_agreement(judge, human)).value == 1.0
    kappa = check(cohens_kappa(judge, human))
    assert kappa.value is None and kappa.reason == "kappa_one_category"
    # Binary verdicts have two categories even when one is never used.
    assert check(gwet_ac1_pair(judge, human)).value == 1.0
    assert check(pabak(judge, human)).value == 1.0
    confusion = binary_confusion(judge, human)
    assert check(confusion.sensitivity).value == 1.0
    assert check(confusion.specificity).value is None
    assert check(confusion.prevalence).value == 1.0


def test_one_category_that_is_not_binary():
    judge = human = ["a", "a", "a"]
    for measure in (cohens_kappa, gwet_ac1_pair, pabak):
        assert check(measure(judge, human)).value is None
    assert check(pabak(judge, human, categories=["a", "b"])).value == 1.0


def test_judge_and_humans_each_constant_but_different():
    assert check(cohens_kappa([True] * 4, [False] * 4)).value == 0.0
    assert check(percent_agreement([True] * 4, [False] * 4)).value == 0.0
    assert check(pabak([True] * 4, [False] * 4)).value == -1.0


def test_all_one_value_among_raters():
    matrix = [[True] * 4, [True] * 4, [True, True, None, True]]
    assert check(krippendorff_alpha(matrix)).value is None
    assert check(gwet_ac1(matrix)).value == 1.0
    assert check(pairwise_agreement(matrix)).value == 1.0
    assert check(fleiss_kappa([[3, 0]] * 4)).value is None
    assert check(gwet_ac1([["x"] * 3] * 2)).value is None


def test_a_single_unit():
    assert check(percent_agreement([True], [False])).value == 0.0
    assert check(cohens_kappa([True], [True])).value is None
    assert check(cohens_kappa([True], [False])).value == 0.0
    assert check(fleiss_kappa([[2, 1]])).value == pytest.approx(-0.5)
    assert check(krippendorff_alpha([[True], [False]])).value == 0.0
    assert check(gwet_ac1([[True], [True]])).value is not None
    assert wilson_interval(1, 1).is_defined
    assert cluster_bootstrap_agreement([True], ["only"]).reason


def test_no_overlapping_raters():
    matrix = [[True, None, None], [None, False, None], [None, None, True]]
    for measure in AMONG_RATERS:
        assert check(measure(matrix)).reason == "no_rater_pairs"
    assert check(fleiss_kappa_from_ratings([[True], [False], [True]])).value is None
    for result in agreement_with_others(matrix):
        assert check(result.agreement).value is None
        assert (result.rated, result.skipped_no_others, result.compared) == (1, 1, 0)


def test_a_rater_with_a_single_rating():
    matrix = [[True, False, True, True], [True, False, False, True], [None, None, True, None]]
    for measure in AMONG_RATERS:
        assert check(measure(matrix)).value is not None
    lone = agreement_with_others(matrix)[2]
    assert (lone.rated, lone.compared, lone.skipped_tie) == (1, 0, 1)
    assert check(lone.agreement).value is None


def test_a_rater_who_rated_nothing():
    silent = agreement_with_others([[True, False], [None, None]])[1]
    assert silent.rated == 0 and check(silent.agreement).reason == "rater_no_units"


LABELS = [True, False, None, "x"]


def random_cases(seed: int, count: int):
    """Small random inputs, heavy in the corners: empty, one unit, missing values, one label."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        alphabet = LABELS[: int(rng.integers(1, len(LABELS) + 1))]
        shape = (int(rng.integers(0, 5)), int(rng.integers(0, 5)))
        picks = rng.integers(0, len(alphabet), size=shape)
        yield [[alphabet[i] for i in row] for row in picks.tolist()]


@pytest.mark.parametrize("seed", range(3))
def test_pairwise_measures_never_fail(seed):
    for matrix in random_cases(seed, 150):
        pairs = [(row[0], row[-1]) for row in matrix if row]
        judge, human = [a for a, _ in pairs], [b for _, b in pairs]
        for measure in PAIRWISE:
            check(measure(judge, human))
        confusion = binary_confusion(judge, human)
        for stat in (confusion.sensitivity, confusion.specificity, confusion.prevalence):
            check(stat)


@pytest.mark.parametrize("seed", range(3))
def test_among_rater_measures_never_fail(seed):
    for matrix in random_cases(100 + seed, 150):
        for measure in AMONG_RATERS:
            check(measure(matrix))
        for result in agreement_with_others(matrix):
            check(result.agreement)
        n_units = len(matrix[0]) if matrix else 0
        check(fleiss_kappa_from_ratings([[row[u] for row in matrix] for u in range(n_units)]))


@pytest.mark.parametrize("seed", range(3))
def test_bootstrap_never_fails(seed):
    rng = np.random.default_rng(200 + seed)
    for _ in range(100):
        n = int(rng.integers(0, 10))
        flags = (rng.random(n) < 0.7).tolist()
        clusters = rng.integers(0, int(rng.integers(1, 4)), size=n).tolist()
        interval = cluster_bootstrap_agreement(flags, clusters, n_resamples=20)
        if interval.low is None:
            assert interval.reason
        else:
            assert 0.0 <= interval.low <= interval.high <= 1.0
