"""Attacker's finding 26: deactivating an account and then activating it again revived its
old browser session and its old API token. Deactivation ends both for good: the person
signs in again, and asks for a new token."""

from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from accounts.roles import COORDINATOR, EXPERT
from annotation.services.people import PersonChange, person_update
from tests.conftest import PASSWORD


def _set_active(world, user, active: bool) -> None:
    person_update(
        actor=world["users"][COORDINATOR],
        user=user,
        change=PersonChange(roles=[EXPERT], specialities=[], is_active=active, rate=None),
    )


def test_reactivating_an_account_does_not_revive_its_session_or_token(world):
    expert = world["users"][EXPERT]
    browser = Client()
    assert browser.login(username=expert.username, password=PASSWORD)
    other_browser = Client()
    assert other_browser.login(username=expert.username, password=PASSWORD)
    token = Token.objects.create(user=expert)
    api = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    rounds = reverse("api-review-rounds")
    home = reverse("review-my-work")
    assert browser.get(home).status_code == 200
    assert api.get(rounds).status_code == 200
    # Someone else's session is not touched.
    coordinator = Client()
    assert coordinator.login(username=world["users"][COORDINATOR].username, password=PASSWORD)

    _set_active(world, expert, False)
    _set_active(world, expert, True)

    for old in (browser, other_browser):
        page = old.get(home)
        assert page.status_code == 302 and reverse("login") in page["Location"]
    assert api.get(rounds).status_code == 401
    assert not Token.objects.filter(user=expert).exists()
    assert coordinator.get(reverse("people")).status_code == 200
    fresh = Client()
    assert fresh.login(username=expert.username, password=PASSWORD)
    assert fresh.get(home).status_code == 200
