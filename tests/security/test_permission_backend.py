"""The sign-in backend answers permission questions as Django's ModelBackend does, from one
query per request instead of two."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission

from accounts.backends import ThrottledModelBackend, role_names
from accounts.roles import COORDINATOR, EXPERT, RESEARCHER, SENIOR_EXPERT
from accounts.services import user_create_with_role

pytestmark = pytest.mark.django_db


def _fresh(user):
    return get_user_model().objects.get(pk=user.pk)


@pytest.mark.parametrize("role", [EXPERT, COORDINATOR, RESEARCHER])
def test_role_permissions_plus_a_direct_grant_match_model_backend_in_one_query(
    role, django_assert_num_queries
):
    user = user_create_with_role(username=f"u-{role}", password="x-pass-123", role=role)
    user.user_permissions.add(Permission.objects.get(codename="delete_logentry"))
    expected = ModelBackend().get_all_permissions(_fresh(user))
    assert "admin.delete_logentry" in expected and len(expected) > 1
    fresh = _fresh(user)
    with django_assert_num_queries(1):
        assert ThrottledModelBackend().get_all_permissions(fresh) == expected
        assert fresh.has_perm("admin.delete_logentry")
        assert not fresh.has_perm("auth.add_permission")


def test_superuser_has_every_permission_and_inactive_user_none():
    boss = get_user_model().objects.create_superuser("boss", password="x-pass-123")
    every = {f"{p.content_type.app_label}.{p.codename}" for p in Permission.objects.all()}
    assert ThrottledModelBackend().get_all_permissions(_fresh(boss)) == every
    idle = user_create_with_role(username="idle", password="x-pass-123", role=COORDINATOR)
    idle.is_active = False
    idle.save()
    assert ThrottledModelBackend().get_all_permissions(_fresh(idle)) == set()
    assert not _fresh(idle).has_perm("annotation.view_benchmark")


def test_the_same_query_names_the_users_roles_for_the_page_header(django_assert_num_queries):
    user = user_create_with_role(username="two-roles", password="x-pass-123", role=RESEARCHER)
    user.groups.add(Group.objects.get(name=SENIOR_EXPERT), Group.objects.create(name="Auditors"))
    # The roles in their own order (as the people pages list them), other groups after.
    expected = [SENIOR_EXPERT, RESEARCHER, "Auditors"]
    fresh = _fresh(user)
    with django_assert_num_queries(1):
        assert fresh.has_perm("annotation.annotate")
        assert role_names(fresh) == expected
    # Without a permission check first, the names cost their own query, and are kept.
    other = _fresh(user)
    with django_assert_num_queries(1):
        assert role_names(other) == expected
        assert role_names(other) == expected


def test_a_user_without_groups_or_grants_has_no_roles_and_no_permissions():
    user = get_user_model().objects.create_user("bare", password="x-pass-123")
    fresh = _fresh(user)
    assert ThrottledModelBackend().get_all_permissions(fresh) == set()
    assert role_names(fresh) == []


def test_the_signed_in_user_is_read_as_the_model_backend_reads_it(django_assert_num_queries):
    user = user_create_with_role(username="reader", password="x-pass-123", role=EXPERT)
    user.last_login = user.date_joined
    user.save()
    with django_assert_num_queries(1):
        found = ThrottledModelBackend().get_user(user.pk)
    expected = ModelBackend().get_user(user.pk)
    fields = [f.attname for f in get_user_model()._meta.concrete_fields]
    assert [getattr(found, f) for f in fields] == [getattr(expected, f) for f in fields]
    assert found.last_login == user.date_joined  # a datetime on every database
    assert ThrottledModelBackend().get_user(user.pk + 1000) is None
    user.is_active = False
    user.save()
    assert ThrottledModelBackend().get_user(user.pk) is None
