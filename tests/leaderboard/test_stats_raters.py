"""Agreement among human raters: Fleiss, Krippendorff, Gwet's AC1, pairwise, leave-one-out."""

from itertools import combinations

import numpy as np
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from annotation.consensus import majority
from leaderboard.stats import (
    agreement_with_others,
    fleiss_kappa,
    fleiss_kappa_from_ratings,
    gwet_ac1,
    krippendorff_alpha,
    pairwise_agreement,
)

FLEISS_1971 = (
    "00060 03003 01401 00006 03030 20400 00402 20310 20040 00006 10050 11040 03300 10050 "
    "02031 00501 30012 51000 02040 10203 00006 01050 02013 20040 10041 05010 40002 02040 "
    "10500 00006"
)
KRIPPENDORFF_2011 = """
1 2 3 3 2 1 4 1 2 . . .
1 2 3 3 2 2 4 1 2 5 . 3
. 3 3 3 2 3 4 2 2 5 1 .
1 2 3 3 2 4 4 1 2 5 1 .
"""


def fleiss_table():
    return [[int(digit) for digit in unit] for unit in FLEISS_1971.split()]


def krippendorff_matrix():
    return [
        [None if value == "." else int(value) for value in line.split()]
        for line in KRIPPENDORFF_2011.strip().splitlines()
    ]


def random_matrix(seed, raters=5, units=30, categories=3, missing=0.4):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, categories, size=(raters, units)).tolist()
    gone = rng.random((raters, units)) < missing
    return [[None if gone[r][u] else values[r][u] for u in range(units)] for r in range(raters)]


def columns(matrix):
    return [[row[u] for row in matrix if row[u] is not None] for u in range(len(matrix[0]))]


def test_fleiss_1971_reference():
    table = fleiss_table()
    assert len(table) == 30 and all(sum(unit) == 6 for unit in table)
    assert fleiss_kappa(table).value == pytest.approx(0.430, abs=5e-4)


@pytest.mark.parametrize("seed", range(6))
def test_fleiss_matches_statsmodels(seed):
    rng = np.random.default_rng(seed)
    raters, k = int(rng.integers(2, 8)), int(rng.integers(2, 6))
    table = np.array([rng.multinomial(raters, rng.dirichlet(np.ones(k))) for _ in range(40)])
    assert fleiss_kappa(table).value == pytest.approx(sm_fleiss_kappa(table), abs=1e-9)


def test_fleiss_from_rating_lists_equals_the_count_table():
    per_unit = [
        [label for label, count in enumerate(unit, start=1) for _ in range(count)]
        for unit in fleiss_table()
    ]
    assert fleiss_kappa_from_ratings(per_unit).value == pytest.approx(
        fleiss_kappa(fleiss_table()).value, abs=1e-12
    )


def test_fleiss_refuses_incomplete_data_with_a_reason():
    stat = fleiss_kappa_from_ratings([[True, True, False], [True, None, False]])
    assert stat.value is None and stat.reason == "uneven_ratings:low=2;high=3"
    assert fleiss_kappa([[2, 1], [1, 1]]).value is None


def test_krippendorff_2011_reference():
    assert krippendorff_alpha(krippendorff_matrix()).value == pytest.approx(0.743, abs=5e-4)


def test_gwet_ac1_on_the_krippendorff_data_reference():
    assert gwet_ac1(krippendorff_matrix()).value == pytest.approx(0.7754, abs=5e-5)


def naive_krippendorff(matrix):
    """Coincidence matrix built by enumerating ordered pairs of values within each unit."""
    coincidence = {}
    for unit in columns(matrix):
        m = len(unit)
        if m < 2:
            continue
        for i, j in ((i, j) for i in range(m) for j in range(m) if i != j):
            key = (unit[i], unit[j])
            coincidence[key] = coincidence.get(key, 0.0) + 1.0 / (m - 1)
    totals = {}
    for (c, _), weight in coincidence.items():
        totals[c] = totals.get(c, 0.0) + weight
    n = sum(totals.values())
    observed = sum(w for (c, k), w in coincidence.items() if c != k)
    expected = sum(totals[c] * totals[k] for c in totals for k in totals if c != k) / (n - 1)
    return 1 - observed / expected


def naive_gwet_ac1(matrix):
    units = [unit for unit in columns(matrix) if unit]
    labels = sorted({label for unit in units for label in unit})
    paired = [unit for unit in units if len(unit) >= 2]
    pa = np.mean(
        [
            sum(unit.count(c) * (unit.count(c) - 1) for c in labels) / (len(unit) * (len(unit) - 1))
            for unit in paired
        ]
    )
    pi = [np.mean([unit.count(c) / len(unit) for unit in units]) for c in labels]
    pe = sum(p * (1 - p) for p in pi) / (len(labels) - 1)
    return (pa - pe) / (1 - pe)


def naive_pairwise(matrix):
    pairs = [(a == b) for unit in columns(matrix) for a, b in combinations(unit, 2)]
    return sum(pairs) / len(pairs)


@pytest.mark.parametrize("seed", range(8))
def test_multi_rater_measures_match_direct_transcriptions(seed):
    matrix = random_matrix(seed, raters=3 + seed % 4, categories=2 + seed % 3)
    assert krippendorff_alpha(matrix).value == pytest.approx(naive_krippendorff(matrix))
    assert gwet_ac1(matrix).value == pytest.approx(naive_gwet_ac1(matrix))
    assert pairwise_agreement(matrix).value == pytest.approx(naive_pairwise(matrix))


def test_on_complete_data_krippendorff_approaches_fleiss():
    # With no missing values alpha = (1 - 1/(N m)) kappa_Fleiss + 1/(N m).
    matrix = random_matrix(3, raters=4, units=50, missing=0.0)
    counts = [[column.count(c) for c in range(3)] for column in columns(matrix)]
    kappa, nm = fleiss_kappa(counts).value, 50 * 4
    assert krippendorff_alpha(matrix).value == pytest.approx((1 - 1 / nm) * kappa + 1 / nm)


def test_matrices_may_be_numpy_arrays_with_nan():
    matrix = np.array(random_matrix(4), dtype=float)
    as_lists = [[None if np.isnan(v) else int(v) for v in row] for row in matrix]
    assert krippendorff_alpha(matrix) == krippendorff_alpha(as_lists)
    assert gwet_ac1(matrix) == gwet_ac1(as_lists)


def test_pairwise_agreement_by_hand():
    matrix = [[True, True, None], [True, False, False], [None, False, False]]
    # unit 1: one agreeing pair; unit 2: one pair of three agrees; unit 3: one agreeing pair.
    assert pairwise_agreement(matrix).value == pytest.approx(3 / 5)


def naive_agreement_with_others(matrix):
    results = []
    for r, row in enumerate(matrix):
        compared = agreed = ties = alone = 0
        for u, own in enumerate(row):
            if own is None:
                continue
            others = majority(matrix[o][u] for o in range(len(matrix)) if o != r)
            if others.outcome == "no votes":
                alone += 1
            elif others.is_tie:
                ties += 1
            else:
                compared += 1
                agreed += others.label == own
        results.append((compared, agreed, ties, alone))
    return results


@pytest.mark.parametrize("seed", range(6))
def test_agreement_with_others_follows_the_majority_rule(seed):
    matrix = random_matrix(seed, raters=2 + seed % 4, categories=2 + seed % 2)
    got = agreement_with_others(matrix)
    assert [(g.compared, g.agreed, g.skipped_tie, g.skipped_no_others) for g in got] == (
        naive_agreement_with_others(matrix)
    )
    for result in got:
        assert result.rated == result.compared + result.skipped_tie + result.skipped_no_others
        if result.compared:
            assert result.agreement.value == pytest.approx(result.agreed / result.compared)


def test_agreement_with_others_by_hand_and_with_names():
    matrix = [
        [True, True, False, True],
        [True, False, None, None],
        [True, True, True, None],
    ]
    alice, bob, carol = agreement_with_others(matrix, raters=["alice", "bob", "carol"])
    assert alice.rater == "alice"
    # alice: unit 0 others T,T agree; unit 1 others F,T tie; unit 2 other T disagrees;
    # unit 3 nobody else.
    assert (alice.compared, alice.agreed, alice.skipped_tie, alice.skipped_no_others) == (
        2,
        1,
        1,
        1,
    )
    assert alice.agreement.value == pytest.approx(0.5)
    assert (bob.compared, bob.agreed) == (2, 1)
    assert (carol.compared, carol.agreed, carol.skipped_tie) == (2, 1, 1)


def test_rater_names_must_match_the_rows():
    with pytest.raises(ValueError):
        agreement_with_others([[True], [False]], raters=["only one"])


def test_ragged_matrices_are_a_programming_error():
    with pytest.raises(ValueError):
        krippendorff_alpha([[True, False], [True]])
