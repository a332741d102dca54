"""Sessions live in a signed cookie: a signed-in request reads no session row, and the
account checks that end a session still apply on every request."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def expert():
    return user_create_with_role(username="cookie-e", password="x-pass-123", role=EXPERT)


def test_a_signed_in_page_reads_no_session_from_the_database(expert):
    client = client_for(expert)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("review-my-work")).status_code == 200
    assert not any("django_session" in q["sql"] for q in queries.captured_queries)


def test_a_deactivated_account_or_a_new_password_ends_the_session(expert):
    client = client_for(expert)
    assert client.get(reverse("review-my-work")).status_code == 200
    expert.set_password("another-pass-456")
    expert.save()
    assert client.get(reverse("review-my-work")).status_code == 302  # to the login page
    client = client_for(expert)
    expert.is_active = False
    expert.save()
    assert client.get(reverse("review-my-work")).status_code == 302
