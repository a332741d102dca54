"""The agreement report weights units by the inverse of their response's inclusion
probability (the Hájek estimate): equal weights give today's numbers bit for bit, unequal
ones the weighted share."""

import json
import random

import pytest
from django.core.management import call_command

from annotation.models import ReviewItem
from leaderboard.report.agreement import Unit, agreement_report
from leaderboard.report.selectors.agreement import agreement_units, sampling_weights
from leaderboard.report.typed import AgreementReport
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the fixture)


def random_units(n: int, seed: int) -> list[Unit]:
    rng = random.Random(seed)
    units = []
    for i in range(n):
        votes = tuple((f"r{k}", rng.random() < 0.6) for k in range(rng.choice((2, 3))))
        judge = None if rng.random() < 0.05 else rng.random() < 0.6
        units.append(
            Unit(
                i // 4,
                f"c{i // 8}",
                i % 4,
                f"a{i % 4}",
                "k",
                rng.choice(("normal", "hard")),
                "s",
                rng.choice(("A", "B", "C")),
                judge,
                votes,
            )
        )
    return units


def without_sampling(report: AgreementReport) -> dict:
    return {key: value for key, value in report.as_json().items() if key != "sampling"}


@pytest.mark.parametrize("probability", [1.0, 0.3, 0.123456789])
def test_equal_weights_give_todays_report_bit_for_bit(probability):
    units = random_units(997, seed=5)
    plain = agreement_report(units, resamples=50)
    weighted = agreement_report(units, resamples=50, weights=[1 / probability] * len(units))
    assert 0 < plain.percent_agreement < 1
    # == on floats, not approx: the same bits.
    assert without_sampling(weighted) == without_sampling(plain)
    assert weighted.sampling["weights_applied"] is True
    assert weighted.sampling["percent_agreement_unweighted"] == plain.percent_agreement


def unit(response: int, system: str, agrees: bool) -> Unit:
    return Unit(
        response, f"c{response}", 1, "a", "k", "normal", "s", system, agrees, (("r", True),)
    )


def test_unequal_weights_give_the_hajek_estimate_checked_by_hand():
    # Big: 3 of 10 responses drawn (p = 0.3), 2 agree; Small: 3 of 4 (p = 0.75), none agree.
    units = [unit(i, "Big", i < 2) for i in range(3)] + [
        unit(10 + i, "Small", False) for i in range(3)
    ]
    weights = [1 / 0.3] * 3 + [1 / 0.75] * 3
    report = agreement_report(units, resamples=50, weights=weights, sampling={"design": "x"})
    # Big's 10 responses agree at 2/3 (6.67 of them), Small's 4 at 0: 6.67 of 14.
    assert report.percent_agreement == pytest.approx((10 * 2 / 3) / 14, abs=1e-12)
    assert report.sampling["percent_agreement_unweighted"] == pytest.approx(2 / 6)
    assert report.sampling["design"] == "x"
    # The gate stays on the plain share.
    assert report.gate["point"] == pytest.approx(2 / 6)


def test_weights_that_do_not_fit_the_units_are_refused():
    units = [unit(i, "A", True) for i in range(3)]
    with pytest.raises(ValueError, match="one per unit"):
        agreement_report(units, resamples=10, weights=[1.0, 1.0])
    with pytest.raises(ValueError, match="positive"):
        agreement_report(units, resamples=10, weights=[1.0, 0.0, 1.0])


@pytest.mark.django_db
def test_a_uniform_round_reports_its_design_and_todays_numbers(data):  # noqa: F811
    round_, run = data
    units = agreement_units(round_=round_, runs=[run])
    design, weights = sampling_weights(round_=round_, units=units)
    assert design == {"design": "proportional", "probabilities_recorded": True}
    assert set(weights) == {1.0}
    plain = agreement_report(units, resamples=100)
    weighted = agreement_report(units, resamples=100, weights=weights, sampling=design)
    assert without_sampling(weighted) == without_sampling(plain)
    # A round sampled before probabilities were recorded is not weighted.
    ReviewItem.objects.filter(round=round_).update(inclusion_probability=None)
    design, weights = sampling_weights(round_=round_, units=units)
    assert weights is None and design["probabilities_recorded"] is False


@pytest.mark.django_db
def test_the_report_json_names_the_sampling_design(data, capsys):  # noqa: F811
    call_command(
        "agreement_report",
        *("--benchmark", "hb", "--round", "R", "--judge-run", "latest"),
        *("--json", "--resamples", "100"),
    )
    report = json.loads(capsys.readouterr().out)
    assert report["percent_agreement"] == 0.75
    assert report["sampling"] == {
        "design": "proportional",
        "probabilities_recorded": True,
        "weights_applied": True,
        "gate_weighted": False,
        "percent_agreement_unweighted": 0.75,
    }


@pytest.fixture(scope="module")
def demo_bundle(django_db_setup, django_db_blocker, tmp_path_factory):
    from leaderboard.models import LeaderboardSnapshot
    from tests.leaderboard.bundle_tools import PREFIX

    with django_db_blocker.unblock():
        call_command("load_demo")
        snapshot = LeaderboardSnapshot.objects.get()
        path = tmp_path_factory.mktemp("bundle") / "demo.zip"
        call_command("bundle", str(snapshot.pk), str(path))
        data, gate = path.read_bytes(), snapshot.gate_id
        call_command("flush", "--no-input")
    return data, PREFIX.format(id=gate)


def failed_checks(blob: bytes) -> set[str]:
    import io

    from leaderboard.exports.bundles.verify import verify_bundle

    result = verify_bundle(io.BytesIO(blob))
    return {check["name"] for check in result.as_dict()["checks"] if check["result"] == "fail"}


@pytest.mark.django_db
def test_a_bundle_of_a_round_sampled_by_system_checks_the_plain_share(demo_bundle):
    from leaderboard.exports.bundles import layout
    from tests.leaderboard.bundle_tools import load, read_files, store, write_files

    bundle, prefix = demo_bundle
    files = read_files(bundle)
    report = load(files, prefix + layout.REPORT_JSON)
    # The demo's round was imported (someone else chose its items): no probabilities, no
    # weights, the plain share.
    assert report["sampling"]["probabilities_recorded"] is False
    assert report["sampling"]["weights_applied"] is False
    assert report["sampling"]["percent_agreement_unweighted"] == report["percent_agreement"]
    plain = report["percent_agreement"]
    # Sampled by system, the weighted share differs; the bundle carries the plain share,
    # which the verifier recomputes from the votes and verdicts.
    report["sampling"] |= {"design": "by_system", "weights_applied": True}
    report["percent_agreement"] = plain - 0.01
    store(files, prefix + layout.REPORT_JSON, report)
    evaluation = load(files, prefix + layout.EVALUATION)
    evaluation["agreement"] = plain - 0.01
    store(files, prefix + layout.EVALUATION, evaluation)
    assert failed_checks(write_files(files)) == set()
    # An edited plain share is still caught.
    report["sampling"]["percent_agreement_unweighted"] = plain - 0.01
    store(files, prefix + layout.REPORT_JSON, report)
    assert "agreement" in failed_checks(write_files(files))
