"""Judge vs human consensus: agreement, Cohen's kappa, Gwet's AC1, PABAK, confusion matrix."""

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa

from leaderboard.stats import (
    binary_confusion,
    cohens_kappa,
    cohens_kappa_table,
    gwet_ac1,
    gwet_ac1_pair,
    pabak,
    percent_agreement,
)


def table_to_pairs(table):
    """Two aligned label lists whose cross-tabulation is ``table``."""
    judge, human = [], []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            judge += [i] * count
            human += [j] * count
    return judge, human


def test_cohens_kappa_reference_table():
    assert cohens_kappa_table([[20, 5], [10, 15]]).value == pytest.approx(0.400, abs=5e-4)
    judge, human = table_to_pairs([[20, 5], [10, 15]])
    assert cohens_kappa(judge, human).value == pytest.approx(0.4, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_cohens_kappa_matches_statsmodels(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 6))
    table = rng.integers(0, 40, size=(k, k))
    expected = sm_cohens_kappa(table).kappa
    assert cohens_kappa_table(table).value == pytest.approx(expected, abs=1e-9)
    judge, human = table_to_pairs(table)
    assert cohens_kappa(judge, human).value == pytest.approx(expected, abs=1e-9)


def test_percent_agreement_and_pabak_on_binary_verdicts():
    judge = [True, True, False, False, True]
    human = [True, False, False, False, False]
    assert percent_agreement(judge, human).value == pytest.approx(0.6)
    assert pabak(judge, human).value == pytest.approx(2 * 0.6 - 1)


def test_pabak_general_form_uses_the_number_of_categories():
    judge = ["a", "b", "c", "a"]
    human = ["a", "b", "a", "c"]
    assert pabak(judge, human).value == pytest.approx((3 * 0.5 - 1) / 2)
    declared = pabak(judge, human, categories=["a", "b", "c", "d"])
    assert declared.value == pytest.approx((4 * 0.5 - 1) / 3)


def test_gwet_ac1_two_raters_by_hand():
    # 2x2 table [[20, 5], [10, 15]]: po = 0.7, pi_1 = (25/50 + 30/50) / 2 = 0.55.
    judge, human = table_to_pairs([[20, 5], [10, 15]])
    pe = 2 * 0.55 * 0.45
    assert gwet_ac1_pair(judge, human).value == pytest.approx((0.7 - pe) / (1 - pe))


@pytest.mark.parametrize("seed", range(5))
def test_gwet_ac1_two_raters_equals_the_multi_rater_formula(seed):
    rng = np.random.default_rng(seed)
    judge = rng.integers(0, 3, size=40).tolist()
    human = rng.integers(0, 3, size=40).tolist()
    assert gwet_ac1_pair(judge, human).value == pytest.approx(
        gwet_ac1([judge, human]).value, abs=1e-12
    )


def test_confusion_matrix_with_the_human_as_reference():
    judge = [True, True, True, False, False, False, True, None]
    human = [True, True, False, True, False, False, False, True]
    confusion = binary_confusion(judge, human)
    assert (confusion.both_hit, confusion.judge_only) == (2, 2)
    assert (confusion.human_only, confusion.both_miss) == (1, 2)
    assert confusion.n == 7 and confusion.agreements == 4
    assert confusion.sensitivity.value == pytest.approx(2 / 3)
    assert confusion.specificity.value == pytest.approx(2 / 4)
    assert confusion.prevalence.value == pytest.approx(3 / 7)
    assert confusion.judge_positive_rate.value == pytest.approx(4 / 7)


def test_confusion_with_another_positive_label():
    confusion = binary_confusion(["yes", "no", "no"], ["yes", "yes", "no"], positive="yes")
    assert (confusion.both_hit, confusion.judge_only, confusion.human_only) == (1, 0, 1)
    assert confusion.both_miss == 1


def test_units_without_a_consensus_are_left_out():
    judge = [True, False, True, True]
    human = [True, None, False, np.nan]
    assert percent_agreement(judge, human).value == pytest.approx(0.5)
    assert cohens_kappa(judge, human) == cohens_kappa([True, True], [True, False])


def test_sequences_of_different_length_are_a_programming_error():
    with pytest.raises(ValueError):
        percent_agreement([True], [True, False])
    with pytest.raises(ValueError):
        binary_confusion([True], [])


def test_labels_outside_declared_categories_are_an_error():
    with pytest.raises(ValueError):
        pabak(["a", "z"], ["a", "a"], categories=["a", "b"])


def test_contingency_tables_must_be_square_counts():
    with pytest.raises(ValueError):
        cohens_kappa_table([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError):
        cohens_kappa_table([[1, -2], [3, 4]])
