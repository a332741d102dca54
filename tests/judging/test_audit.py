"""Judge configuration changes and the steering of judge runs are in the audit log, with
who did it; no key or key variable is ever written there."""

import json
from dataclasses import replace

import pytest
from django.urls import reverse

from core.models import AuditEvent
from judging import audit_actions
from judging.services.judge_versions import (
    call_settings_of,
    judge_config_save,
    version_settings_of,
)
from judging.services.runs import judge_run_start
from tests.conftest import client_for

pytestmark = pytest.mark.django_db(transaction=True)


def test_run_start_pause_resume_and_cancel_are_audited(
    judged_benchmark, sim_config, coordinator, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # keep the run waiting: no worker is running
    benchmark, systems = judged_benchmark
    run = judge_run_start(
        benchmark=benchmark, systems=systems, config=sim_config(), user=coordinator
    )
    started = AuditEvent.objects.get(action=audit_actions.RUN_STARTED)
    assert started.actor == coordinator and started.benchmark == benchmark
    assert started.details == {
        "run": run.pk,
        "kind": "judge",
        "judge": "sim v1",
        "systems": ["Alpha", "Beta"],
        "tasks": 8,
        "round": None,
    }
    client = client_for(coordinator)
    for action in ("pause", "pause", "cancel", "cancel"):
        client.post(reverse("judge-run-control", args=[run.pk, action]))
    steps = AuditEvent.objects.filter(action__startswith="judging.run_").order_by("pk")
    # A repeated click that changes nothing records nothing.
    assert [(e.action, e.actor, e.details) for e in steps] == [
        (audit_actions.RUN_STARTED, coordinator, started.details),
        (audit_actions.RUN_PAUSED, coordinator, {"run": run.pk}),
        (audit_actions.RUN_CANCELLED, coordinator, {"run": run.pk}),
    ]


def test_a_resumed_run_is_audited(judged_benchmark, sim_config, coordinator, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems, config=sim_config())
    client = client_for(coordinator)
    client.post(reverse("judge-run-control", args=[run.pk, "pause"]))
    client.post(reverse("judge-run-control", args=[run.pk, "resume"]))
    run.refresh_from_db()
    assert run.status == "running"
    resumed = AuditEvent.objects.get(action=audit_actions.RUN_RESUMED)
    assert resumed.actor == coordinator and resumed.details == {"run": run.pk, "was": "paused"}


def test_configuration_changes_are_audited_without_key_values(sim_config, coordinator, monkeypatch):
    secret = "sk-live-NeverInTheAuditLog0123456789"
    monkeypatch.setenv("CONCORD_JUDGE_KEY_AUDIT", secret)
    config = sim_config()
    created = AuditEvent.objects.get(action=audit_actions.JUDGE_CONFIG_CREATED)
    assert created.details["config"] == "sim" and created.details["current_version"] == 1
    version = config.current_version

    calls = replace(
        call_settings_of(config), api_key_env="CONCORD_JUDGE_KEY_AUDIT", max_concurrency=2
    )
    judge_config_save(
        name="sim",
        settings=version_settings_of(version),
        calls=calls,
        config=config,
        user=coordinator,
    )
    changed = AuditEvent.objects.get(action=audit_actions.JUDGE_CONFIG_CHANGED)
    assert changed.actor == coordinator
    assert changed.details["changed"] == ["api_key_env", "max_concurrency"]
    assert changed.details["new_version"] is False
    # Saving the same settings again changes nothing and records nothing.
    judge_config_save(
        name="sim",
        settings=version_settings_of(version),
        calls=calls,
        config=config,
        user=coordinator,
    )
    assert AuditEvent.objects.filter(action=audit_actions.JUDGE_CONFIG_CHANGED).count() == 1
    logged = json.dumps(list(AuditEvent.objects.values_list("details", flat=True)))
    assert secret not in logged and "CONCORD_JUDGE_KEY_AUDIT" not in logged
