"""A published leaderboard records the round whose votes corrected it: the one asked for, by
default the evaluation's round when the gate policy has a bias condition (the board the
decision read), else none; another benchmark's round is refused, publishing nothing."""

import io
import json
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation.models import Benchmark, ReviewRound
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.corrected.board import RoundNotFound
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.build import bundle_write
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.gate.services.evaluation import leaderboard_publish
from leaderboard.management.commands.load_demo import DEMO_JUDGE, DEMO_ROUND, VALIDATION_ROUND
from leaderboard.models import GatePolicy, LeaderboardSnapshot


def _publish(capsys, *extra) -> dict:
    call_command(
        "publish", "--benchmark", "demo", "--judge", DEMO_JUDGE, "--user", "coordinator",
        "--json", *extra,
    )  # fmt: skip
    return json.loads(capsys.readouterr().out)


def test_without_a_bias_condition_a_board_is_corrected_only_when_asked(demo_loaded, db, capsys):
    assert LeaderboardSnapshot.objects.get().corrected_by is None
    plain = _publish(capsys)
    assert plain["corrected_by"] is None
    asked = _publish(capsys, "--corrected-by", DEMO_ROUND)
    snapshot = LeaderboardSnapshot.objects.get(pk=asked["published"])
    assert asked["corrected_by"] == DEMO_ROUND
    assert snapshot.corrected_by == ReviewRound.objects.get(name=DEMO_ROUND)
    with pytest.raises(CommandError, match="no review round 'nope'"):
        _publish(capsys, "--corrected-by", "nope")


def test_under_a_bias_condition_the_evaluations_round_corrects_by_default(demo_loaded, db, capsys):
    benchmark = Benchmark.objects.get(slug="demo")
    GatePolicy.objects.update_or_create(benchmark=benchmark, defaults={"max_bias_points": 50.0})
    published = _publish(capsys)
    snapshot = LeaderboardSnapshot.objects.get(pk=published["published"])
    assert snapshot.corrected_by.name == VALIDATION_ROUND == snapshot.gate.round.name
    # Its bundle carries the board as the condition read it, with the policy's margin.
    out = io.BytesIO()
    bundle_write(snapshot, out)
    corrected = json.loads(zipfile.ZipFile(out).read(layout.CORRECTED))
    assert corrected["bias_test"]["margin"] == 50.0
    assert corrected["corrected_by"]["round"] == VALIDATION_ROUND
    checks = {c["name"]: c["result"] for c in verify_bundle(out).as_dict()["checks"]}
    assert checks["corrected_scores"] == "pass"


def test_another_benchmarks_round_is_refused_and_nothing_is_published(demo_loaded, db):
    demo = Benchmark.objects.get(slug="demo")
    other = ReviewRound.objects.exclude(benchmark=demo).first() or ReviewRound.objects.create(
        benchmark=Benchmark.objects.exclude(pk=demo.pk).first(), name="elsewhere"
    )
    before = LeaderboardSnapshot.objects.count()
    with pytest.raises(RoundNotFound, match="is not of benchmark 'demo'"):
        leaderboard_publish(
            board=board_runs(benchmark=demo, judge=DEMO_JUDGE),
            profile="heartbench",
            user=get_user_model().objects.get(username="coordinator"),
            corrected_by=other,
        )
    assert LeaderboardSnapshot.objects.count() == before


def test_the_api_publishes_with_a_correcting_round_and_shows_it(demo_loaded, db):
    from django.urls import reverse
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(get_user_model().objects.get(username="coordinator"))
    url = reverse("api-leaderboards", args=["demo"])
    created = client.post(url, {"judge": DEMO_JUDGE, "corrected_by": DEMO_ROUND}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["corrected_by"] == DEMO_ROUND
    listed = client.get(url).json()
    assert [row["corrected_by"] for row in listed] == [DEMO_ROUND, None]
    before = LeaderboardSnapshot.objects.count()
    bad = client.post(url, {"judge": DEMO_JUDGE, "corrected_by": "nope"}, format="json")
    assert bad.status_code == 400 and "no review round 'nope'" in bad.json()["detail"]
    assert LeaderboardSnapshot.objects.count() == before
