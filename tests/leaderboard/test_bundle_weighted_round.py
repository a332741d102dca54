"""The bundle of a board evaluated on a round sampled by system, with unequal inclusion
probabilities: `verify_bundle` re-derives the weighted report from the items' recorded
probabilities. The sequential block, weighted by the items' chances, and the gate's history
holding their weights are recomputed and checked, as are the weighted share and its
interval (`weighted_95`)."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.models import Benchmark, ReviewItem, ReviewRound
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.evidence.selectors.pick import agreement_evidence
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.build import bundle_write
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.gate.services.evaluation import gate_evaluate, leaderboard_publish
from leaderboard.management.commands.load_demo import DEMO_JUDGE, VALIDATION_ROUND
from tests.leaderboard.bundle_tools import PREFIX, load, read_files, store, write_files


@pytest.fixture(scope="module")
def by_system_bundle(django_db_setup, django_db_blocker):
    """The demo's validation round as if drawn by system (small systems more likely), the
    judge evaluated on it again and the board published on that evaluation."""
    with django_db_blocker.unblock():
        call_command("load_demo")
        benchmark = Benchmark.objects.get(slug="demo")
        round_ = ReviewRound.objects.get(name=VALIDATION_ROUND)
        round_.sampling = "by_system"
        round_.save(update_fields=["sampling"])
        items = list(ReviewItem.objects.filter(round=round_).select_related("response__system"))
        systems = sorted({item.response.system.name for item in items})
        for item in items:
            item.inclusion_probability = 0.2 + 0.3 * systems.index(item.response.system.name)
        ReviewItem.objects.bulk_update(items, ["inclusion_probability"])
        coordinator = get_user_model().objects.get(username="coordinator")
        evidence = agreement_evidence(
            benchmark=benchmark, round_ref=VALIDATION_ROUND, judge=DEMO_JUDGE
        )
        evaluation = gate_evaluate(evidence=evidence, user=coordinator)
        snapshot = leaderboard_publish(
            board=board_runs(benchmark=benchmark, judge=DEMO_JUDGE),
            profile="heartbench",
            user=coordinator,
        )
        assert snapshot.gate_id == evaluation.pk
        out = io.BytesIO()
        bundle_write(snapshot, out)
        call_command("flush", "--no-input")
    return out.getvalue(), PREFIX.format(id=evaluation.pk)


def checks(blob: bytes) -> tuple[dict, list]:
    found = verify_bundle(io.BytesIO(blob)).as_dict()
    return {c["name"]: c["result"] for c in found["checks"]}, found["problems"]


@pytest.mark.django_db
def test_an_honest_by_system_bundle_reproduces_the_weighted_test_and_interval(
    by_system_bundle,
):
    blob, prefix = by_system_bundle
    report = load(read_files(blob), prefix + layout.REPORT_JSON)
    assert report["sampling"]["weights_applied"] is True
    assert report["sequential"]["weighted"] is True
    assert report["sequential"]["decision"] is not None
    assert report["gate"]["rounds"][-1]["weights"]
    assert report["weighted_95"] is not None
    assert report["percent_agreement"] != report["sampling"]["percent_agreement_unweighted"]
    found, problems = checks(blob)
    assert not problems
    for name in ("agreement", "sequential", "gate_history", "gate_decision"):
        assert found[name] == "pass", name


@pytest.mark.django_db
def test_an_edited_weighted_interval_or_share_fails_agreement(by_system_bundle):
    blob, prefix = by_system_bundle
    for edit in (
        lambda r: r["weighted_95"].__setitem__(0, r["weighted_95"][0] - 0.02),
        lambda r: r.__setitem__("percent_agreement", r["percent_agreement"] + 0.01),
    ):
        files = read_files(blob)
        report = load(files, prefix + layout.REPORT_JSON)
        edit(report)
        store(files, prefix + layout.REPORT_JSON, report)
        found, problems = checks(write_files(files))
        assert found["agreement"] == "fail", problems


@pytest.mark.django_db
def test_another_sequential_decision_claimed_for_a_by_system_round_fails(by_system_bundle):
    blob, prefix = by_system_bundle
    files = read_files(blob)
    report = load(files, prefix + layout.REPORT_JSON)
    other = "fail" if report["sequential"]["decision"] == "pass" else "pass"
    report["sequential"] |= {"decision": other}
    store(files, prefix + layout.REPORT_JSON, report)
    found, _problems = checks(write_files(files))
    assert found["sequential"] == "fail"


@pytest.mark.django_db
def test_edited_item_weights_in_the_gates_history_fail(by_system_bundle):
    blob, prefix = by_system_bundle
    files = read_files(blob)
    report = load(files, prefix + layout.REPORT_JSON)
    weights = report["gate"]["rounds"][-1]["weights"]
    weights[0] = weights[0] * 2
    store(files, prefix + layout.REPORT_JSON, report)
    found, _problems = checks(write_files(files))
    assert found["gate_history"] == "fail"
