"""The Alternative Annotator Test and HealthBench's macro F1 against direct implementations
of the published procedures, written here from the papers' descriptions, with scipy's
t-test and statsmodels' Benjamini-Yekutieli correction as the references."""

import numpy as np
import pytest
from scipy.stats import ttest_1samp
from statsmodels.stats.multitest import multipletests

from leaderboard.stats.alt_test import (
    EPSILONS,
    Instance,
    alt_test,
    by_adjusted,
    indicators,
    t_test_below,
)
from leaderboard.stats.meta_f1 import meta_f1
from leaderboard.stats.reasons import parse


def seeded(seed=7, n=120, experts=6, judge_noise=0.25, expert_noise=(0.1, 0.15, 0.2, 0.3, 0.4)):
    """Instances with a hidden truth; each expert labels a random subset with their own
    noise, so some are tested and some are not, and the judge wins against some only."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.4
    noise = [*expert_noise, 0.1][:experts]
    coverage = [0.9, 0.8, 0.7, 0.6, 0.5, 0.15][:experts]
    out = []
    for i in range(n):
        labels = []
        for e in range(experts):
            if rng.random() < coverage[e]:
                flip = rng.random() < noise[e]
                labels.append((f"E{e}", bool(truth[i] ^ flip)))
        judge = bool(truth[i] ^ (rng.random() < judge_noise))
        out.append(Instance(key=i, judge=judge, labels=tuple(labels)))
    return out


def paper_alt_test(instances, epsilon, q=0.05, min_humans=2, min_instances=30):
    """The procedure as Calderon et al. state it, on the paper's data shapes: annotations
    per human, the LLM's per instance."""
    humans: dict[str, dict[int, bool]] = {}
    llm = {}
    for inst in instances:
        llm[inst.key] = inst.judge
        for h, label in inst.labels:
            humans.setdefault(h, {})[inst.key] = label
    per_instance = {}
    for h, anns in humans.items():
        for i in anns:
            per_instance.setdefault(i, []).append(h)
    keep = {i for i, hs in per_instance.items() if len(hs) >= min_humans}
    p_values, rhos, names, diffs_of = [], [], [], {}
    for h, anns in humans.items():
        items = [i for i in anns if i in keep]
        if len(items) < min_instances:
            continue
        llm_ind, h_ind = [], []
        for i in items:
            rest = [humans[o][i] for o in per_instance[i] if o != h]
            h_score = np.mean([anns[i] == r for r in rest])
            l_score = np.mean([llm[i] == r for r in rest])
            llm_ind.append(int(l_score >= h_score))
            h_ind.append(int(h_score >= l_score))
        diffs = np.array(h_ind) - np.array(llm_ind)
        p_values.append(ttest_1samp(diffs, epsilon, alternative="less").pvalue)
        rhos.append(np.mean(llm_ind))
        names.append(h)
        diffs_of[h] = diffs
    reject, adjusted, _, _ = multipletests(p_values, alpha=q, method="fdr_by")
    return {
        "names": names,
        "p": p_values,
        "adjusted": list(adjusted),
        "reject": list(reject),
        "winning_rate": sum(reject) / len(names),
        "advantage": float(np.mean(rhos)),
        "means": {h: float(np.mean(d)) for h, d in diffs_of.items()},
    }


@pytest.mark.parametrize("seed", [7, 11, 23])
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_the_test_equals_the_papers_procedure(seed, epsilon):
    data = seeded(seed=seed)
    expected = paper_alt_test(data, epsilon)
    got = alt_test(indicators(data), epsilon=epsilon)
    tested = [e for e in got.experts if e.p_value is not None]
    assert [e.expert for e in tested] == expected["names"]
    assert [e.p_value for e in tested] == pytest.approx(expected["p"], rel=1e-9, abs=1e-15)
    assert [e.p_adjusted for e in tested] == pytest.approx(expected["adjusted"], rel=1e-9)
    assert [e.judge_wins for e in tested] == expected["reject"]
    assert [e.mean_difference for e in tested] == pytest.approx(
        [expected["means"][e.expert] for e in tested]
    )
    assert got.winning_rate == pytest.approx(expected["winning_rate"])
    assert got.advantage_probability == pytest.approx(expected["advantage"])
    assert got.passed == (expected["winning_rate"] >= 0.5)
    # The expert with few labels is left out, and says why.
    few = next(e for e in got.experts if e.expert == "E5")
    assert few.p_value is None and few.judge_wins is None
    assert parse(few.reason)[0] == "alt_few_items"


def test_the_seeded_data_set_exercises_the_correction():
    """Across the epsilons, the correction both rejects and keeps some experts' H0, and
    keeps one that the raw p-value alone would reject: the BY step matters here."""
    outcomes = set()
    corrected_away = False
    for seed in (7, 11, 23):
        for epsilon in EPSILONS:
            for e in alt_test(indicators(seeded(seed=seed)), epsilon=epsilon).experts:
                if e.p_value is not None:
                    outcomes.add(e.judge_wins)
                    corrected_away |= e.p_value <= 0.05 and not e.judge_wins
    assert outcomes == {True, False}
    assert corrected_away


def test_the_correction_equals_statsmodels_with_ties_and_extremes():
    rng = np.random.default_rng(3)
    for m in (1, 2, 5, 17):
        p = list(rng.random(m) ** 3)
        p[0:1] = [0.0]
        if m > 2:
            p[2] = p[1]
        _, reference, _, _ = multipletests(p, alpha=0.05, method="fdr_by")
        assert by_adjusted(p) == pytest.approx(list(reference), rel=1e-12)


def test_the_t_test_equals_scipys_including_no_variation():
    rng = np.random.default_rng(5)
    for _ in range(20):
        values = list(rng.integers(-1, 2, size=rng.integers(2, 60)))
        values = [int(v) for v in values]
        for margin in (0.0, 0.1, 0.2):
            if len(set(values)) == 1:
                continue
            reference = ttest_1samp(values, margin, alternative="less").pvalue
            assert t_test_below(values, margin) == pytest.approx(reference, rel=1e-9)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        for constant in ([0] * 40, [-1] * 40, [1] * 40):
            reference = ttest_1samp(constant, 0.1, alternative="less").pvalue
            assert t_test_below(constant, 0.1) == reference


def test_too_few_experts_gives_no_winning_rate():
    data = seeded(experts=2, expert_noise=(0.1, 0.1))
    result = alt_test(indicators(data), epsilon=0.2)
    assert result.tested == 2
    assert result.winning_rate is None and result.passed is None
    assert parse(result.reason) == ("alt_few_experts", {"units": "2", "needed": "3"})


def test_items_count_responses_not_criteria():
    """Ten criteria of three responses are three items: too few, whatever the instances."""
    data = [
        Instance(
            key=(r, c),
            item=r,
            judge=True,
            labels=(("A", True), ("B", True), ("C", c % 2 == 0)),
        )
        for r in range(3)
        for c in range(10)
    ]
    result = alt_test(indicators(data), epsilon=0.1)
    assert [e.items for e in result.experts] == [3, 3, 3]
    assert [e.instances for e in result.experts] == [30, 30, 30]
    assert result.winning_rate is None


def paper_pairwise_macro_f1(pairs):
    """Macro F1 over (prediction, truth) pairs: 2TP / (2TP + FP + FN) per class."""
    scores = []
    for positive in (True, False):
        tp = sum(1 for p, t in pairs if p == positive and t == positive)
        fp = sum(1 for p, t in pairs if p == positive and t != positive)
        fn = sum(1 for p, t in pairs if p != positive and t == positive)
        scores.append(2 * tp / (2 * tp + fp + fn))
    return sum(scores) / 2


def test_macro_f1_equals_healthbenchs_pairwise_definition():
    data = [i for i in seeded(seed=13) if len(i.labels) >= 2]
    judge, experts = meta_f1(data)
    judge_pairs = [(i.judge, label) for i in data for _, label in i.labels]
    assert judge.pairs == len(judge_pairs)
    assert judge.f1.value == pytest.approx(paper_pairwise_macro_f1(judge_pairs))
    for expert in experts:
        pairs = [
            (mine, other)
            for i in data
            for who, mine in i.labels
            if who == expert.rater
            for someone, other in i.labels
            if someone != who
        ]
        assert expert.pairs == len(pairs)
        assert expert.f1.value == pytest.approx(paper_pairwise_macro_f1(pairs))


def test_macro_f1_says_why_it_is_undefined():
    always = [Instance(key=i, judge=True, labels=(("A", True), ("B", True))) for i in range(5)]
    judge, experts = meta_f1(always)
    assert judge.f1.value is None and judge.f1.reason == "f1_one_class"
    judge, experts = meta_f1([Instance(key=0, judge=True, labels=(("A", True),))])
    assert judge.f1.reason == "no_units" and experts[0].f1.reason == "rater_no_units"
