"""Repeated failed sign-ins pause that username from that address, and guessing one
username from many addresses slows down for browsers that never signed in with it
(accounts/throttle.py)."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db.models import F
from django.test import Client, override_settings

from accounts.models import LoginCounter
from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from accounts.throttle import login_is_paused
from tests.conftest import PASSWORD

PAUSED = "Too many failed sign-in attempts"
MISMATCH = "Your username and password didn"


def login_is_locked(*, username: str, ip: str) -> bool:
    return login_is_paused(username=username, ip=ip) is not None


def later(seconds: float) -> None:
    """The clock moves on: every stored time of the throttle moves back as much."""
    back = timedelta(seconds=seconds)
    LoginCounter.objects.update(window_ends=F("window_ends") - back)
    LoginCounter.objects.filter(locked_until__isnull=False).update(
        locked_until=F("locked_until") - back
    )


def attempt(username: str, password: str, ip: str = "10.0.0.1", **extra):
    client = Client(REMOTE_ADDR=ip)
    response = client.post("/login/", {"username": username, "password": password}, **extra)
    return client, response


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


@pytest.fixture
def alice(db):
    return user_create_with_role(username="alice", password=PASSWORD, role=EXPERT)


def fail(username: str, times: int, ip: str = "10.0.0.1") -> list:
    return [attempt(username, "wrong-password", ip)[1] for _ in range(times)]


def test_five_failures_pause_the_pair_even_for_the_right_password(alice):
    responses = fail("alice", 4)
    assert [r.status_code for r in responses] == [200] * 4
    assert all(MISMATCH in r.content.decode() for r in responses)
    # The fifth failure locks, and says so at once.
    fifth = fail("alice", 1)[0]
    assert fifth.status_code == 429
    assert PAUSED in fifth.content.decode() and "15 minutes" in fifth.content.decode()

    client, response = attempt("alice", PASSWORD)
    assert response.status_code == 429
    assert PAUSED in response.content.decode()
    assert not signed_in(client)


def test_the_pause_is_per_username_and_address(alice):
    user_create_with_role(username="bob", password=PASSWORD, role=EXPERT)
    fail("alice", 5)
    client, response = attempt("alice", PASSWORD, ip="10.0.0.2")
    assert response.status_code == 302 and signed_in(client)
    client, response = attempt("bob", PASSWORD, ip="10.0.0.1")
    assert response.status_code == 302 and signed_in(client)


def test_a_successful_sign_in_resets_the_count(alice):
    fail("alice", 4)
    client, response = attempt("alice", PASSWORD)
    assert response.status_code == 302 and signed_in(client)
    assert [r.status_code for r in fail("alice", 4)] == [200] * 4
    assert not login_is_locked(username="alice", ip="10.0.0.1")


def test_unknown_usernames_are_paused_alike_so_a_pause_reveals_nothing(alice):
    known = fail("alice", 5)
    unknown = fail("nobody-here", 5)
    assert [r.status_code for r in known] == [r.status_code for r in unknown]
    assert login_is_locked(username="nobody-here", ip="10.0.0.1")


def test_chinese_usernames_are_throttled_too(db):
    user_create_with_role(username="心理专家", password=PASSWORD, role=EXPERT)
    assert fail("心理专家", 5)[-1].status_code == 429
    client, response = attempt("心理专家", PASSWORD)
    assert response.status_code == 429 and not signed_in(client)


def test_the_pause_ends_after_the_lockout(alice):
    fail("alice", 5)
    assert login_is_locked(username="alice", ip="10.0.0.1")
    later(14 * 60)
    assert attempt("alice", PASSWORD)[1].status_code == 429
    later(60 + 1)
    client, response = attempt("alice", PASSWORD)
    assert response.status_code == 302 and signed_in(client)


def test_failures_older_than_the_window_are_forgotten(alice):
    fail("alice", 4)
    later(15 * 60 + 1)
    assert [r.status_code for r in fail("alice", 4)] == [200] * 4
    assert not login_is_locked(username="alice", ip="10.0.0.1")


def test_the_admin_login_shares_the_budget(db):
    get_user_model().objects.create_superuser(username="root", password=PASSWORD)
    for _ in range(5):
        Client(REMOTE_ADDR="10.0.0.1").post(
            "/admin/login/", {"username": "root", "password": "nope", "next": "/admin/"}
        )
    client, response = attempt("root", PASSWORD)
    assert response.status_code == 429 and not signed_in(client)
    admin = Client(REMOTE_ADDR="10.0.0.1")
    admin.post("/admin/login/", {"username": "root", "password": PASSWORD, "next": "/admin/"})
    assert not signed_in(admin)


def test_the_test_clients_login_without_a_request_still_works(alice):
    fail("alice", 5)
    client = Client()
    assert client.login(username="alice", password=PASSWORD)


@override_settings(NUM_PROXIES=1)
def test_behind_a_proxy_the_forwarded_address_is_the_client(alice):
    proxy = "192.168.0.10"
    for _ in range(5):
        attempt("alice", "wrong", ip=proxy, HTTP_X_FORWARDED_FOR="203.0.113.5")
    # Another client behind the same proxy is not paused...
    client, response = attempt("alice", PASSWORD, ip=proxy, HTTP_X_FORWARDED_FOR="203.0.113.6")
    assert response.status_code == 302 and signed_in(client)
    # ...and the paused one cannot escape by prepending an address of its choosing.
    client, response = attempt(
        "alice", PASSWORD, ip=proxy, HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.5"
    )
    assert response.status_code == 429 and not signed_in(client)


USERNAME_PAUSED = "from a browser not used with it before is paused"


def test_guessing_one_username_from_many_addresses_slows_down_without_pausing_its_owner(alice):
    first = Client(REMOTE_ADDR="10.1.0.1")
    first.post("/login/", {"username": "alice", "password": PASSWORD})
    assert signed_in(first)
    # The owner's browser now remembers signing in as alice (signed, HttpOnly, a year).
    remembered = first.cookies["concord_device"]
    assert remembered["httponly"] and remembered["max-age"] == 365 * 24 * 3600
    owner = Client(REMOTE_ADDR="10.1.0.1")
    owner.cookies["concord_device"] = remembered.value

    # Two failures each from many addresses: no pair is paused, but the username is after
    # ten failures, for browsers that never signed in with it.
    statuses = []
    for n in range(12):
        for _ in range(2):
            statuses.append(attempt("alice", "guess", ip=f"203.0.113.{n}")[1].status_code)
    assert statuses[:10] == [200] * 10 and set(statuses[10:]) == {429}
    checked = LoginCounter.objects.count()  # nothing was counted for the refused ones
    client, response = attempt("alice", PASSWORD, ip="198.51.100.1")  # a new browser
    assert response.status_code == 429 and USERNAME_PAUSED in response.content.decode()
    assert "1 minute;" in response.content.decode()
    assert not signed_in(client) and LoginCounter.objects.count() == checked

    # The owner's browser is spared, from any address, and keeps its own pair budget.
    owner.post("/login/", {"username": "alice", "password": PASSWORD}, REMOTE_ADDR="10.1.0.9")
    assert signed_in(owner)


def test_the_username_pause_doubles_up_to_the_lockout(alice):
    pauses = []
    for n in range(16):
        later(15 * 60 + 1)  # past any pause so far (pair windows too)
        response = attempt("alice", "guess", ip=f"203.0.113.{n}")[1]
        assert response.status_code == 200
        row = LoginCounter.objects.filter(locked_until__isnull=False).first()
        if row is not None and n >= 9:
            pauses.append(round((row.locked_until - row.window_ends).total_seconds()))
    minutes = [int(86400 + p) // 60 for p in pauses]
    assert minutes == [1, 2, 4, 8, 15, 15, 15]


def test_a_quiet_day_forgets_the_usernames_failures(alice):
    for n in range(10):
        attempt("alice", "guess", ip=f"203.0.113.{n}")
    assert attempt("alice", "guess", ip="203.0.113.99")[1].status_code == 429
    later(24 * 3600 + 1)
    assert attempt("alice", "guess", ip="203.0.113.99")[1].status_code == 200


def test_a_successful_sign_in_from_a_new_browser_gives_its_place_back(alice):
    for n in range(20):
        client, response = attempt("alice", PASSWORD, ip=f"10.2.0.{n}")
        assert response.status_code == 302 and signed_in(client)


def test_a_forged_device_cookie_is_ignored(alice):
    for n in range(10):
        attempt("alice", "guess", ip=f"203.0.113.{n}")
    client = Client(REMOTE_ADDR="198.51.100.2")
    client.cookies["concord_device"] = "W10:forged:signature"
    response = client.post("/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 429 and not signed_in(client)
