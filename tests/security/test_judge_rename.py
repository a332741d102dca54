"""The third walk's finding 19: renaming a judge must not rewrite published evidence."""

import pytest
from django.urls import reverse

from judging.models import JudgeConfig, JudgeRun
from leaderboard.models import LeaderboardSnapshot
from tests.conftest import client_for
from tests.leaderboard.test_gate_integrity import (  # noqa: F401 - the shared world
    api,
    open_round,
    rate,
    record,
    world,
)

pytestmark = pytest.mark.django_db


def test_published_evidence_keeps_the_judge_name_it_had(world, researcher, coordinator):  # noqa: F811
    benchmark, experts = world
    rate(open_round(benchmark, experts, "A"), experts, agreeing=4)
    record(researcher, "A")
    api(coordinator).post(reverse("api-leaderboards", args=["gi"]), {"judge": "judge"})
    snapshot = LeaderboardSnapshot.objects.get()
    JudgeConfig.objects.filter(name="judge").update(name="renamed")
    listed = api(coordinator).get(reverse("api-leaderboards", args=["gi"])).json()
    assert listed[0]["judge_name"] == "judge v1"
    evaluations = api(researcher).get(reverse("api-gate-evaluations", args=["gi"])).json()
    assert evaluations[0]["judge_name"] == "judge v1"
    page = (
        client_for(coordinator)
        .get(reverse("leaderboard-snapshot", args=["gi", snapshot.pk]))
        .content.decode()
    )
    assert "judge v1" in page and "renamed" not in page
    assert JudgeRun.objects.get().judge_version.label == "renamed v1"
