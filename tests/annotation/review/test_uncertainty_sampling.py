"""Sampling more where the judge is unsure: chances proportional to a floor plus the
uncertainty, adding up to the expected sample size, drawn response by response from the
round's seed (Poisson sampling)."""

import math
import random

import pytest

from annotation.review_sampling import FLOOR_SHARE, poisson_sample, probabilities_by_size


def uncertainties(n: int, seed: int) -> dict[int, float]:
    rng = random.Random(seed)
    # Most responses unanimous, some split: what an ensemble of five gives.
    return {pk: rng.choice((0.0, 0.0, 0.0, 0.2, 0.4)) for pk in range(100, 100 + n)}


def test_chances_add_up_to_the_expected_size_and_follow_floor_plus_uncertainty():
    sizes = uncertainties(500, seed=1)
    chances = probabilities_by_size(sizes, fraction=0.2)
    assert sum(chances.values()) == pytest.approx(0.2 * 500, rel=1e-12)
    floor = FLOOR_SHARE * sum(sizes.values()) / len(sizes)
    ratios = {chances[pk] / (floor + u) for pk, u in sizes.items()}
    assert max(ratios) == pytest.approx(min(ratios), rel=1e-12)
    assert all(0 < p < 1 for p in chances.values())
    # Unanimous responses keep a chance: the floor's.
    assert min(chances.values()) > 0.01


def test_chances_above_one_are_capped_and_the_rest_share_what_is_left():
    sizes = {1: 10.0, 2: 0.1, 3: 0.1, 4: 0.1, 5: 0.1}
    chances = probabilities_by_size(sizes, fraction=0.6, floor_share=0.1)
    assert chances[1] == 1.0
    assert sum(chances.values()) == pytest.approx(3.0)
    assert len({round(chances[pk], 12) for pk in (2, 3, 4, 5)}) == 1
    assert probabilities_by_size(sizes, fraction=1.0) == dict.fromkeys(sizes, 1.0)


def test_no_uncertainty_anywhere_gives_equal_chances():
    chances = probabilities_by_size(dict.fromkeys(range(40), 0.0), fraction=0.25)
    assert set(chances.values()) == {0.25}


@pytest.mark.parametrize(
    ("sizes", "fraction", "floor_share"),
    [({1: -0.1}, 0.5, 0.1), ({1: math.nan}, 0.5, 0.1), ({1: 0.2}, 0.0, 0.1), ({1: 0.2}, 0.5, 0)],
)
def test_bad_input_is_refused(sizes, fraction, floor_share):
    with pytest.raises(ValueError):
        probabilities_by_size(sizes, fraction=fraction, floor_share=floor_share)


def test_the_seed_reproduces_the_draw():
    chances = probabilities_by_size(uncertainties(300, seed=2), fraction=0.3)
    first = poisson_sample(chances, seed=7)
    assert poisson_sample(dict(reversed(chances.items())), seed=7) == first
    assert poisson_sample(chances, seed=8) != first
    # What an earlier draw took is skipped, the rest drawn as before.
    assert poisson_sample(chances, seed=7, exclude=set(first[:5])) == first[5:]


def test_uncertain_responses_are_drawn_more_often_over_many_seeds():
    sizes = uncertainties(200, seed=3)
    chances = probabilities_by_size(sizes, fraction=0.2)
    split = [pk for pk, u in sizes.items() if u == 0.4]
    sure = [pk for pk, u in sizes.items() if u == 0.0]
    seeds = range(300)
    drawn = {pk: 0 for pk in sizes}
    sizes_drawn = []
    for seed in seeds:
        sample = poisson_sample(chances, seed=seed)
        sizes_drawn.append(len(sample))
        for pk in sample:
            drawn[pk] += 1
    rate_split = sum(drawn[pk] for pk in split) / (len(split) * len(seeds))
    rate_sure = sum(drawn[pk] for pk in sure) / (len(sure) * len(seeds))
    # Each rate is its chance's binomial mean: within 4 standard errors of it.
    for group, rate in ((split, rate_split), (sure, rate_sure)):
        p = chances[group[0]]
        assert abs(rate - p) < 4 * math.sqrt(p * (1 - p) / (len(group) * len(seeds)))
    assert rate_split > 3 * rate_sure
    # The size varies around the expected one.
    mean_size = sum(sizes_drawn) / len(sizes_drawn)
    assert abs(mean_size - 40) < 4 * math.sqrt(sum(p * (1 - p) for p in chances.values()) / 300)
