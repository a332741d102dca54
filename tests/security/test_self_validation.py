"""The third walk's finding 16: one coordinator grants itself the Expert role, opens a round
with one rater per item and only itself in the pool, reads the judge's verdicts, rates every
item like the judge, records the gate and publishes. Independent evidence is required."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from accounts.roles import EXPERT
from leaderboard.models import GateEvaluation, LeaderboardSnapshot
from tests.leaderboard.test_gate_integrity import (  # noqa: F401 - the shared world
    api,
    open_round,
    rate,
    world,
)

pytestmark = pytest.mark.django_db


def test_a_coordinator_cannot_validate_a_judge_by_itself(world, coordinator):  # noqa: F811
    benchmark, _experts = world
    coordinator.groups.add(Group.objects.get(name=EXPERT))
    round_ = open_round(benchmark, [coordinator], "self", raters_per_item=1)
    exported = api(coordinator).get(reverse("api-agreement", args=["gi"]))
    assert exported.status_code in (200, 404)  # the verdicts are open to a coordinator
    rate(round_, [coordinator], agreeing=4)  # every item rated like the judge
    recorded = api(coordinator).post(
        reverse("api-gate-evaluations", args=["gi"]),
        {"round": "self", "judge": "judge"},
        format="json",
    )
    assert recorded.status_code == 409, recorded.content
    assert recorded.json()["refusal"] in {"too_few_raters", "rater_reads_verdicts"}
    assert not GateEvaluation.objects.exists()
    published = api(coordinator).post(
        reverse("api-leaderboards", args=["gi"]), {"judge": "judge"}, format="json"
    )
    assert published.status_code == 409 and not LeaderboardSnapshot.objects.exists()
