"""Gate evaluations and publishing are in the audit log, with who did them."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from core.models import AuditEvent
from leaderboard import audit_actions
from leaderboard.models import GateEvaluation, LeaderboardSnapshot
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - the shared fixture

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_gate_evaluation_and_publishing_are_audited(data, researcher, coordinator):  # noqa: F811
    _, run = data
    url = reverse("api-gate-evaluations", args=["hb"])
    created = api(researcher).post(url, {"round": "R", "run": "latest"}, format="json")
    assert created.status_code == 201
    evaluation = GateEvaluation.objects.get()
    gate = AuditEvent.objects.get(action=audit_actions.GATE_EVALUATED)
    assert gate.actor == researcher and gate.benchmark.slug == "hb"
    assert gate.details == {
        "evaluation": evaluation.pk,
        "round": "R",
        "run": run.pk,
        "judge": f"judge v{run.judge_version.number}",
        "passed": True,
        "units": 8,
    }
    published = api(coordinator).post(
        reverse("api-leaderboards", args=["hb"]), {"judge": "judge"}, format="json"
    )
    assert published.status_code == 201
    event = AuditEvent.objects.get(action=audit_actions.LEADERBOARD_PUBLISHED)
    assert event.actor == coordinator
    assert event.details["snapshot"] == LeaderboardSnapshot.objects.get().pk
    assert event.details["gate_evaluation"] == evaluation.pk
    assert event.details["runs"] == [run.pk]
