"""Where sessions live. By default in the database: signing out ends the session, so a copy
of the cookie taken before is refused. With the signed-cookie option a signed-in request
reads no session row; either way a new password or a deactivated account ends the session
on the next request."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

SIGNED_COOKIES = "django.contrib.sessions.backends.signed_cookies"
DATABASE = "accounts.sessions"  # Django's database sessions, read by one plain statement
DJANGO_DATABASE = "django.contrib.sessions.backends.db"


@pytest.fixture
def expert():
    return user_create_with_role(username="cookie-e", password="x-pass-123", role=EXPERT)


def test_by_default_signing_out_ends_a_copied_session(expert, settings):
    assert settings.SESSION_ENGINE == DATABASE
    client = client_for(expert)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    copy = Client()
    copy.cookies[settings.SESSION_COOKIE_NAME] = cookie
    assert copy.get(reverse("review-my-work")).status_code == 200
    client.post(reverse("logout"))
    assert copy.get(reverse("review-my-work")).status_code == 302  # to the login page


def test_with_signed_cookies_a_page_reads_no_session_row(expert, settings):
    settings.SESSION_ENGINE = SIGNED_COOKIES
    client = client_for(expert)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("review-my-work")).status_code == 200
    assert not any("django_session" in q["sql"] for q in queries.captured_queries)


@pytest.mark.parametrize("engine", [DATABASE, DJANGO_DATABASE, SIGNED_COOKIES])
def test_a_deactivated_account_or_a_new_password_ends_the_session(expert, settings, engine):
    settings.SESSION_ENGINE = engine
    client = client_for(expert)
    assert client.get(reverse("review-my-work")).status_code == 200
    expert.set_password("another-pass-456")
    expert.save()
    assert client.get(reverse("review-my-work")).status_code == 302  # to the login page
    client = client_for(expert)
    expert.is_active = False
    expert.save()
    assert client.get(reverse("review-my-work")).status_code == 302


def test_an_expired_session_is_refused_and_a_page_reads_the_session_row_once(expert, settings):
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    client = client_for(expert)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("review-my-work")).status_code == 200
    reads = [q["sql"] for q in queries.captured_queries if "django_session" in q["sql"]]
    assert len(reads) == 1 and "expire_date" in reads[0], reads
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    Session.objects.filter(session_key=key).update(expire_date=timezone.now())
    assert client.get(reverse("review-my-work")).status_code == 302  # to the login page


def test_a_session_key_that_matches_no_row_starts_an_anonymous_session(settings):
    client = Client()
    client.cookies[settings.SESSION_COOKIE_NAME] = "x" * 32
    assert client.get(reverse("review-my-work")).status_code == 302
