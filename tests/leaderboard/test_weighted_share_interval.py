"""The weighted percent agreement's interval: the Hájek ratio's linearised variance,
clustered by dialogue, against statsmodels' cluster-robust weighted least squares, and the
Wilson interval at the effective number of units against statsmodels' Wilson."""

import numpy as np
import pytest

from leaderboard.report.agreement import Unit, agreement_report
from leaderboard.stats.weighted_share import weighted_share_interval
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the fixture)

sm = pytest.importorskip("statsmodels.api")
proportion = pytest.importorskip("statsmodels.stats.proportion")


def _data(seed: int, n: int = 600):
    rng = np.random.default_rng(seed)
    clusters = rng.integers(0, 60, n)
    weights = rng.choice([1 / 0.2, 1 / 0.5, 1 / 0.9], n)
    agree = rng.random(n) < np.where(weights > 3, 0.7, 0.9)
    return agree, weights, clusters


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_variance_is_statsmodels_cluster_robust_weighted_mean(seed):
    agree, weights, clusters = _data(seed)
    result = weighted_share_interval(agree, weights, clusters)
    fit = sm.WLS(agree.astype(float), np.ones(len(agree)), weights=weights).fit(
        cov_type="cluster", cov_kwds={"groups": clusters}
    )
    assert result.point == pytest.approx(float(fit.params[0]), abs=1e-12)
    assert result.se == pytest.approx(float(fit.bse[0]), rel=1e-9)
    n_eff = result.point * (1 - result.point) / result.se**2
    assert result.effective_units == pytest.approx(n_eff, rel=1e-12)
    low, high = proportion.proportion_confint(
        result.point * n_eff, n_eff, alpha=0.05, method="wilson"
    )
    assert (result.low, result.high) == pytest.approx((low, high), abs=1e-12)


def test_undefined_without_units_or_with_one_dialogue():
    assert weighted_share_interval([], [], []).reason == "no_units"
    one = weighted_share_interval([True, False], [1.0, 2.0], ["c", "c"])
    assert one.reason == "single_cluster" and one.low is None


def test_all_agreeing_uses_the_weights_effective_number():
    agree, weights = np.ones(50, bool), np.r_[np.full(25, 1.0), np.full(25, 4.0)]
    result = weighted_share_interval(agree, weights, np.arange(50) // 5)
    kish = weights.sum() ** 2 / (weights**2).sum()
    assert result.effective_units == pytest.approx(kish)
    assert result.high == pytest.approx(1.0) and result.low == pytest.approx(
        proportion.proportion_confint(kish, kish, alpha=0.05, method="wilson")[0], abs=1e-12
    )


def _unit(i: int, system: str, agrees: bool) -> Unit:
    return Unit(i, f"c{i // 2}", 1, "a", "k", "normal", "s", system, agrees, (("r", True),))


def test_the_report_gives_the_weighted_interval_only_under_unequal_weights():
    rng = np.random.default_rng(4)
    units = [_unit(i, "Big" if i < 200 else "Small", bool(rng.random() < 0.8)) for i in range(300)]
    weights = [1 / 0.2 if u.system == "Big" else 1 / 0.8 for u in units]
    report = agreement_report(units, resamples=50, weights=weights, sampling={"design": "x"})
    agree = np.array([u.judge for u in units])
    expected = weighted_share_interval(agree, weights, [u.case for u in units])
    assert report.weighted_95 == [expected.low, expected.high]
    assert report.weighted_95[0] < report.percent_agreement < report.weighted_95[1]
    assert report.sampling["weighted_interval"]["effective_units"] == pytest.approx(
        expected.effective_units
    )
    equal = agreement_report(units, resamples=50, weights=[5.0] * len(units))
    assert "weighted_95" not in equal.as_json() and "weighted_interval" not in equal.sampling


@pytest.mark.django_db
def test_the_agreement_page_shows_the_weighted_interval(data, researcher):  # noqa: F811
    from django.urls import reverse

    from annotation.models import ReviewItem
    from tests.conftest import client_for

    round_, run = data
    items = list(ReviewItem.objects.filter(round=round_).order_by("pk"))
    for item, chance in zip(items, (0.5, 0.25), strict=True):
        item.inclusion_probability = chance
    ReviewItem.objects.bulk_update(items, ["inclusion_probability"])
    page = client_for(researcher).get(
        reverse("agreement", args=["hb"]), {"round": round_.pk, "run": run.pk}
    )
    body = page.content.decode()
    assert 'id="weighted-interval"' in body
    assert "95% CI weighted by the inverse inclusion probabilities" in body
