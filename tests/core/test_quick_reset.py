"""The suite's quick reset after transactional tests empties what a test wrote and keeps
the seeded rows, and refuses (leaving the full flush to run) when a seeded row changed."""

import pytest
from django.contrib.auth.models import Group
from django.db import connection

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark
from tests import quick_reset
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)


def seeded_tables() -> dict[str, str]:
    return {
        table: quick_reset._fingerprint(connection, table)
        for table in quick_reset._non_empty(connection, quick_reset._tables(connection))
    }


def test_what_a_test_wrote_is_deleted_and_the_seeded_rows_stay():
    quick_reset.remember_seeded_rows()
    before = seeded_tables()
    assert "auth_group" in before and "auth_permission" in before
    user_create_with_role(username="written", password=PASSWORD, role=EXPERT)
    Benchmark.objects.create(slug="written", name="写入的评测集")

    assert quick_reset._quick_reset("default")

    assert seeded_tables() == before
    assert not Benchmark.objects.exists()
    assert not Group.objects.get(name=EXPERT).user_set.exists()


def test_a_changed_seeded_row_leaves_the_reset_to_the_full_flush():
    quick_reset.remember_seeded_rows()
    Benchmark.objects.create(slug="kept", name="kept")
    group = Group.objects.get(name=EXPERT)
    group.name = "renamed"
    group.save()

    assert not quick_reset._quick_reset("default")
    # Nothing was deleted: the full flush that follows empties every table.
    assert Benchmark.objects.filter(slug="kept").exists()
