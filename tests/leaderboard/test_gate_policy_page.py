"""Coordinators choose each benchmark's gate rule and threshold on a page: never below the
product's 75%, every change in the audit log, and evaluations already recorded keep the rule
they were decided under."""

import pytest
from django.urls import reverse

from core.models import AuditEvent
from leaderboard import audit_actions
from leaderboard.evidence.selectors.pick import agreement_evidence
from leaderboard.gate.services.evaluation import gate_evaluate
from leaderboard.models import GatePolicy
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - shared fixture

pytestmark = pytest.mark.django_db


def _post(client, **values):
    form = {"rule": "point", "threshold_percent": "75", **values}
    return client.post(reverse("gate-policy", args=["hb"]), form)


def _evaluate(round_, run, user):
    evidence = agreement_evidence(
        benchmark=run.benchmark, round_ref=str(round_.pk), run_ref=str(run.pk)
    )
    return gate_evaluate(evidence=evidence, user=user)


def test_a_coordinator_tightens_the_gate_and_the_next_evaluation_uses_it(data, coordinator):  # noqa: F811
    round_, run = data
    before = _evaluate(round_, run, coordinator)  # 6 of 8 units agree: 75% passes the default
    assert before.passed and before.rule == "point"

    response = _post(
        client_for(coordinator),
        rule="lower_bound",
        threshold_percent="80",
        allow_rubric_changes="on",
    )
    assert response.status_code == 302
    policy = GatePolicy.objects.get(benchmark=run.benchmark)
    assert (policy.rule, policy.threshold, policy.allow_rubric_changes) == (
        "lower_bound",
        0.8,
        True,
    )
    event = AuditEvent.objects.get(action=audit_actions.GATE_POLICY_CHANGED)
    assert event.actor == coordinator and event.benchmark == run.benchmark
    assert event.details["from"]["rule"] == "point" and event.details["to"]["threshold"] == 0.8

    after = _evaluate(round_, run, coordinator)
    assert not after.passed and after.rule == "lower_bound" and after.threshold == 0.8
    before.refresh_from_db()
    assert before.passed and before.rule == "point" and before.threshold == 0.75


def test_saving_the_same_policy_again_records_nothing(data, coordinator):  # noqa: F811
    client = client_for(coordinator)
    assert _post(client, rule="sequential", threshold_percent="75").status_code == 302
    assert _post(client, rule="sequential", threshold_percent="75").status_code == 302
    assert AuditEvent.objects.filter(action=audit_actions.GATE_POLICY_CHANGED).count() == 1


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"threshold_percent": "60"}, "75"),
        ({"threshold_percent": "101"}, "100"),
        ({"threshold_percent": "abc"}, "number"),
        ({"rule": "coin_flip"}, "coin_flip"),
    ],
)
def test_a_looser_or_malformed_policy_is_refused_by_name(data, coordinator, values, message):  # noqa: F811
    response = _post(client_for(coordinator), **values)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not GatePolicy.objects.exists()
    assert not AuditEvent.objects.filter(action=audit_actions.GATE_POLICY_CHANGED).exists()


def test_only_coordinators_change_the_policy(data, researcher, expert):  # noqa: F811
    for user in (researcher, expert):
        assert client_for(user).get(reverse("gate-policy", args=["hb"])).status_code == 403
        assert _post(client_for(user), threshold_percent="90").status_code == 403
    assert not GatePolicy.objects.exists()


def test_the_page_reads_in_chinese_and_links_each_rule_to_its_explanation(data, coordinator):  # noqa: F811
    client = client_for(coordinator)
    client.cookies["django_language"] = "zh-hans"
    page = client.get(reverse("gate-policy", args=["hb"])).content.decode()
    assert "门槛规则" in page or "规则" in page
    for rule in ("point", "lower_bound", "sequential"):
        assert f"{reverse('help-page', args=['researcher'])}#{rule}" in page
    agreement = client.get(reverse("agreement", args=["hb"])).content.decode()
    assert reverse("gate-policy", args=["hb"]) in agreement
