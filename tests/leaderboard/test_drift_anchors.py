"""Drift anchors end to end, with real judge calls to the simulator over HTTP: a judge that
drifts between two runs is flagged on the anchors within the runs the test's planning
says; the leaderboard then warns, and publishing needs a new gate evaluation."""

import pytest
from django.urls import reverse

from annotation.models import ReviewRound, System
from annotation.services.review_rounds import round_set_status
from judging.models import AnchorUnit, JudgeConfig, JudgeRun
from judging.services.anchors import AnchorsRefused, anchor_set_create
from leaderboard.drift.selectors import version_drift
from leaderboard.models import LeaderboardSnapshot
from leaderboard.stats.drift import planned_runs
from tests.conftest import client_for
from tests.judging.conftest import simulator  # noqa: F401 - the simulator over HTTP
from tests.leaderboard.test_evidence_chain import (  # noqa: F401 - fixtures and helpers
    SYSTEMS,
    config_form,
    open_round,
    publish,
    record,
    vote,
    world,
)

pytestmark = pytest.mark.django_db(transaction=True)


def fresh_run(client, benchmark) -> JudgeRun:
    """A run that calls the judge again for every response (no cached answers)."""
    config = JudgeConfig.objects.get(name="sim judge")
    systems = [s.pk for s in System.objects.filter(name__in=SYSTEMS)]
    response = client.post(
        reverse("judge-run-new"),
        {"benchmark": benchmark.pk, "systems": systems, "config": config.pk, "fresh_calls": "on"},
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    run = JudgeRun.objects.order_by("-pk").first()
    assert run.status == JudgeRun.Status.FINISHED
    return run


def test_a_judge_that_drifts_between_runs_is_flagged_and_blocks_publishing(
    world,  # noqa: F811
    coordinator,
    simulator,  # noqa: F811
):
    benchmark, experts = world
    client = client_for(coordinator)
    assert client.post(reverse("judge-config-new"), config_form(simulator)).status_code == 302
    first = fresh_run(client, benchmark)
    round_ = open_round(benchmark, experts, "R1")
    with pytest.raises(AnchorsRefused, match="not closed"):
        anchor_set_create(round_=round_)
    vote(round_, experts, like=first, agree=True)
    round_set_status(round_=round_, status=ReviewRound.Status.CLOSED)
    # The coordinator makes the anchors on the drift page.
    version = first.judge_version
    page = reverse("judge-drift", args=["ev", version.pk])
    client.post(
        reverse("judge-drift-anchors", args=["ev", version.pk]),
        {"round": round_.pk, "responses": "30"},
    )
    gold = list(AnchorUnit.objects.values_list("gold", flat=True))
    assert len(gold) == 12 * 4  # every response of the round, each criterion
    record(client, round_, first)
    second = fresh_run(client, benchmark)
    steady = version_drift(benchmark=benchmark, version=version)
    assert not steady.drifted and [row.agreement for row in steady.runs] == [1.0, 1.0]
    publish(client, second)
    assert LeaderboardSnapshot.objects.count() == 1

    # The provider swaps the model behind the name: from now on it says "met" to everything.
    simulator.configure(drift_after=0, drift_hit_rate=1.0)
    drifted_agreement = sum(gold) / len(gold)
    planned = planned_runs(
        sizes=[4] * 12, agreement=1.0, drift=drifted_agreement - 1.0, power=0.9, seed=5
    )
    assert planned is not None and planned <= 5
    later = [fresh_run(client, benchmark) for _ in range(planned)]
    state = version_drift(benchmark=benchmark, version=version)
    assert state.drifted, state.test
    assert state.flagged_run in later and state.test.direction == "lower"
    assert state.runs[-1].agreement == pytest.approx(drifted_agreement)
    assert state.runs[2].changed and state.runs[2].fingerprints == ("concord-simulator-drifted",)
    assert not state.runs[1].changed

    # The drift page shows the runs, the e-value, the flag and the fingerprint change.
    html = client.get(page).content.decode()
    assert 'id="drift-state"' in html and "concord-simulator-drifted" in html
    assert f"#{state.flagged_run.pk}" in html
    # The leaderboard warns, and so does its API; the published board is marked.
    board = client.get(reverse("leaderboard", args=["ev"]), {"run": later[-1].pk}).content
    assert b'id="drift-warning"' in board and b"judge drifted" in board
    api = client.get(reverse("api-leaderboard", args=["ev"]), {"run": later[-1].pk}).json()
    assert api["drift"]["drifted"] is True and api["drift"]["flagged_run"] == state.flagged_run.pk
    (published,) = client.get(reverse("api-leaderboards", args=["ev"])).json()
    assert published["judge_drifted_at_run"] == state.flagged_run.pk
    shown = client.get(reverse("leaderboard-snapshot", args=["ev", published["id"]])).content
    assert b'id="drift-warning"' in shown

    # Publishing refuses, naming the drift, until a new gate evaluation is recorded.
    refused = client.post(
        reverse("leaderboard-publish", args=["ev"]),
        {"run": second.pk, "profile": "heartbench", "confirm": "yes"},
        follow=True,
    ).content.decode()
    assert "the drift test flagged a change" in refused
    assert LeaderboardSnapshot.objects.count() == 1
    record(client, round_, second)
    publish(client, second)
    assert LeaderboardSnapshot.objects.count() == 2


def test_without_drift_identical_runs_are_never_flagged(
    world,  # noqa: F811
    coordinator,
    simulator,  # noqa: F811
):
    benchmark, experts = world
    client = client_for(coordinator)
    client.post(reverse("judge-config-new"), config_form(simulator))
    first = fresh_run(client, benchmark)
    round_ = open_round(benchmark, experts, "R1")
    vote(round_, experts, like=first, agree=False)
    round_set_status(round_=round_, status=ReviewRound.Status.CLOSED)
    anchor_set_create(round_=round_, responses=6, seed=3)
    runs = [first] + [fresh_run(client, benchmark) for _ in range(3)]
    state = version_drift(benchmark=benchmark, version=first.judge_version)
    assert len({row.agree for row in state.runs}) == 1 and state.runs[0].agreement == 0.0
    assert not state.drifted and state.test.runs_tested == len(runs) - 2
    assert not any(row.changed for row in state.runs)
