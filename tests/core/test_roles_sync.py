"""Each role's group holds exactly the permissions accounts.roles gives it, after a migrate
and after a flush, and bringing the groups in line happens once per migrate, not once per
installed app."""

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from accounts import services
from accounts.roles import ROLE_PERMISSIONS


def _held() -> dict[str, set[str]]:
    return {
        group.name: {
            f"{perm.content_type.app_label}.{perm.codename}"
            for perm in group.permissions.select_related("content_type")
        }
        for group in Group.objects.all()
    }


@pytest.mark.django_db
def test_each_role_holds_exactly_its_permissions_after_migrate():
    assert _held() == {role: set(codes) for role, codes in ROLE_PERMISSIONS.items()}


@pytest.mark.django_db(transaction=True)
def test_a_flush_brings_the_roles_back_once_with_every_apps_permissions(monkeypatch):
    calls = []
    real = services.roles_sync
    monkeypatch.setattr(services, "roles_sync", lambda **kw: calls.append(kw) or real(**kw))
    Group.objects.all().delete()
    call_command("flush", "--no-input")
    assert len(calls) == 1
    # The permissions of the last app with models exist by then: every role is whole.
    assert _held() == {role: set(codes) for role, codes in ROLE_PERMISSIONS.items()}
