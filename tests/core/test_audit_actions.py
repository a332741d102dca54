"""Each app registers the actions it records; the log's column keeps no list of them, so a new
action needs no migration, and an action nobody registered is refused before it is written."""

import io
import re

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext_lazy as _

from annotation import audit_actions as annotation_actions
from core import audit
from core.audit import registry
from core.audit.services import audit_record
from core.models import AuditEvent
from judging import audit_actions as judging_actions
from leaderboard import audit_actions as leaderboard_actions


@pytest.fixture
def scratch_registry(monkeypatch):
    """Registrations made by a test end with it."""
    monkeypatch.setattr(registry, "_ACTIONS", dict(registry._ACTIONS))


def _module_actions(module) -> list[audit.AuditAction]:
    return [v for v in vars(module).values() if isinstance(v, audit.AuditAction)]


def test_every_app_registers_its_actions_when_it_loads():
    values = [str(action) for action in audit.registered_actions()]
    assert len(values) == len(set(values))
    declared = 0
    for module, area in (
        (annotation_actions, ("rubric.", "people.", "review.", "guidance.")),
        (judging_actions, ("judging.",)),
        (leaderboard_actions, ("leaderboard.",)),
    ):
        own = _module_actions(module)
        assert own and all(str(action) in values for action in own)
        assert all(str(action).startswith(area) for action in own)
        declared += len(own)
    # Nothing registers an action outside the apps' audit_actions modules.
    assert len(values) == declared


@pytest.mark.django_db
def test_an_unregistered_action_is_refused_and_nothing_is_written(coordinator):
    with pytest.raises(
        audit.UnknownAuditAction, match=re.escape("'judging.run_exploded' is not a registered")
    ):
        audit_record(actor=coordinator, action="judging.run_exploded", details={"run": 1})
    with pytest.raises(audit.UnknownAuditAction):
        AuditEvent(action="rubric.burned").save()
    assert not AuditEvent.objects.exists()


@pytest.mark.parametrize("value", ["Judging.Started", "nodot", "judging.", "x." + "y" * 39])
def test_a_malformed_action_is_refused_by_name(scratch_registry, value):
    with pytest.raises(
        ImproperlyConfigured, match=re.escape("must look like 'area.what_happened'")
    ):
        audit.register(value, _("anything"))


def test_one_value_keeps_one_label(scratch_registry):
    assert audit.register("judging.run_started", _("judge run started")) is (
        judging_actions.RUN_STARTED
    )
    with pytest.raises(ImproperlyConfigured, match="already registered"):
        audit.register("judging.run_started", _("judge run paused"))


@pytest.mark.django_db
def test_a_newly_registered_action_is_recorded_listed_and_needs_no_migration(
    scratch_registry, coordinator
):
    exported = audit.register("bench.results_exported", "results exported")
    audit_record(actor=coordinator, action=exported, details={})
    client = Client()
    client.force_login(coordinator)
    page = client.get(reverse("audit-log"), {"action": "bench.results_exported"})
    assert page.status_code == 200
    assert '<option value="bench.results_exported" selected>' in page.content.decode()
    call_command("makemigrations", "--check", "--dry-run", stdout=io.StringIO())


@pytest.mark.django_db
def test_the_migration_check_would_see_actions_listed_on_the_column(monkeypatch):
    # The check above can fail: a column listing the actions is a change to migrate.
    field = AuditEvent._meta.get_field("action")
    listed = [(str(a), str(a.label)) for a in audit.registered_actions()]
    monkeypatch.setattr(field, "choices", listed)
    with pytest.raises(SystemExit):
        call_command("makemigrations", "--check", "--dry-run", stdout=io.StringIO())


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_log_labels_every_action_in_both_languages(coordinator, language):
    for action in (annotation_actions.ROUND_OPENED, judging_actions.RUN_PAUSED):
        audit_record(actor=coordinator, action=action, details={})
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(coordinator)
    page = client.get(reverse("audit-log")).content.decode()
    with translation.override(language):
        for action in audit.registered_actions():
            assert f'<option value="{action}">{escape(action.label)}</option>' in page
        for action in (annotation_actions.ROUND_OPENED, judging_actions.RUN_PAUSED):
            assert f"<td>{escape(action.label)}</td>" in page
        if language == "zh-hans":
            assert str(judging_actions.RUN_PAUSED.label) != "judge run paused"
