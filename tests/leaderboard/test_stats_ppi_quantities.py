"""Per-response quantities: their means are the scorer's published scores, and their PPI++
fits equal ppi_py's, for the overall score and every ability, in both profiles."""

import random

import numpy as np
import pytest

from judging.scoring import CaseVerdicts, Profile, ScoredCriterion, score_system
from leaderboard.stats.ppi_quantities import ResponsePair, system_quantities

ppi_py = pytest.importorskip("ppi_py")

ABILITIES = {"共情": "情感", "倾听": "情感", "安全": "风险", "边界": "风险", "结构": "技能"}


def _rubric(rng: random.Random) -> list[tuple[str, str, int | None, bool]]:
    chosen = rng.sample(sorted(ABILITIES), rng.randint(1, 4))
    criteria = [
        (label, ABILITIES[label], rng.choice([1, 2, 3, -1, -2]), False)
        for label in chosen
        for _ in range(rng.randint(1, 4))
    ]
    if rng.random() < 0.4:
        criteria.append(("其他", "其他", rng.choice([None, -4, 2]), True))
    return criteria


def _case(case_id, difficulty, rubric, hits) -> CaseVerdicts:
    return CaseVerdicts(
        case_id=case_id,
        difficulty=difficulty,
        scenario="",
        criteria=tuple(
            ScoredCriterion(ability=a, category=c, weight=w, is_catastrophic=cat, hit=h)
            for (a, c, w, cat), h in zip(rubric, hits, strict=True)
        ),
    )


def _system(seed: int, cases: int = 80, labelled: int = 35):
    rng = random.Random(seed)
    pairs, experts_all = [], []
    for index in range(cases):
        rubric = _rubric(rng)
        difficulty = "hard" if index % 3 == 0 else "normal"
        truth = [rng.random() < 0.55 for _ in rubric]
        judge = [h if rng.random() < 0.85 else not h for h in truth]
        expert_case = _case(f"c{index}", difficulty, rubric, truth)
        judge_case = _case(f"c{index}", difficulty, rubric, judge)
        experts_all.append(expert_case)
        pairs.append(ResponsePair(judge_case, expert_case if index < labelled else None))
    return pairs, experts_all


def _judge_mean(arrays) -> float:
    return float(np.mean([*arrays.yhat, *arrays.yhat_unlabelled]))


@pytest.mark.parametrize("profile", list(Profile))
def test_means_of_the_quantities_are_the_published_scores(profile):
    pairs, experts_all = _system(1)
    quantities = system_quantities(pairs, profile)
    judged = score_system([pair.judge for pair in pairs], profile)
    assert _judge_mean(quantities.overall) == pytest.approx(judged.overall.value, abs=1e-9)
    for label, score in judged.abilities.items():
        assert _judge_mean(quantities.abilities[label]) == pytest.approx(score, abs=1e-9)
    for name, score in judged.categories.items():
        assert _judge_mean(quantities.categories[name]) == pytest.approx(score, abs=1e-9)
    assert _judge_mean(quantities.difficulties["hard"]) == pytest.approx(
        judged.hard.value, abs=1e-9
    )
    assert _judge_mean(quantities.difficulties["normal"]) == pytest.approx(
        judged.normal.value, abs=1e-9
    )
    # With every response labelled, the experts' side is the experts' own scores.
    everyone = [
        ResponsePair(pair.judge, expert) for pair, expert in zip(pairs, experts_all, strict=True)
    ]
    experts = system_quantities(everyone, profile)
    assert np.mean(experts.overall.y) == pytest.approx(
        score_system(experts_all, profile).overall.value, abs=1e-9
    )


@pytest.mark.parametrize("profile", list(Profile))
@pytest.mark.parametrize("seed", [2, 3])
def test_fits_equal_ppi_py_for_overall_and_every_ability(profile, seed):
    pairs, _ = _system(seed)
    quantities = system_quantities(pairs, profile)
    targets = {"overall": quantities.overall, **quantities.abilities}
    checked = 0
    for arrays in targets.values():
        fit = arrays.fit(min_labelled=2)
        if len(arrays.y) < 2 or not arrays.yhat_unlabelled:
            continue
        y, yhat, yhat_u = (np.array(a) for a in (arrays.y, arrays.yhat, arrays.yhat_unlabelled))
        point = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u)
        low, high = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05)
        assert fit.corrected == pytest.approx(float(point[0]), abs=1e-9, rel=0)
        assert fit.interval() == pytest.approx((float(low[0]), float(high[0])), abs=1e-9, rel=0)
        checked += 1
    assert checked == len(targets)


def test_a_labelled_response_on_another_rubric_is_refused():
    judge = _case("c1", "normal", [("共情", "情感", 2, False)], [True])
    experts = _case("c1", "normal", [("安全", "风险", 2, False)], [True])
    with pytest.raises(ValueError, match="different rubrics"):
        system_quantities([ResponsePair(judge, experts)], Profile.HEARTBENCH)
