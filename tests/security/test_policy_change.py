"""The third walk's finding 21: tightening the gate rule must not leave older, laxer
evaluations publishing boards."""

import pytest
from django.urls import reverse

from leaderboard.models import GatePolicy
from tests.leaderboard.test_gate_integrity import (  # noqa: F401 - the shared world
    api,
    open_round,
    rate,
    record,
    world,
)

pytestmark = pytest.mark.django_db


def test_a_stricter_policy_blocks_publishing_on_an_older_evaluation(world, researcher, coordinator):  # noqa: F811
    benchmark, experts = world
    rate(open_round(benchmark, experts, "A"), experts, agreeing=4)
    assert record(researcher, "A").json()["passed"] is True
    GatePolicy.objects.create(benchmark=benchmark, rule="lower_bound")
    refused = api(coordinator).post(
        reverse("api-leaderboards", args=["gi"]), {"judge": "judge"}, format="json"
    )
    assert refused.status_code == 409 and refused.json()["refusal"] == "policy_changed"
    assert record(researcher, "A").json()["rule"] == "lower_bound"
