"""Repeated failed sign-ins pause that username from that address (accounts/throttle.py)."""

import os
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import pytest
import redis
from django.contrib.auth import get_user_model
from django.test import Client, override_settings

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from accounts.throttle import login_is_locked
from tests.conftest import PASSWORD

ROOT = Path(__file__).resolve().parents[2]
PAUSED = "Too many failed sign-in attempts"
MISMATCH = "Your username and password didn"


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
    start = time.time()
    with mock.patch("django.core.cache.backends.locmem.time.time", return_value=start):
        fail("alice", 5)
        assert login_is_locked(username="alice", ip="10.0.0.1")
    later = start + 15 * 60 + 1
    with mock.patch("django.core.cache.backends.locmem.time.time", return_value=later):
        client, response = attempt("alice", PASSWORD)
    assert response.status_code == 302 and signed_in(client)


def test_failures_older_than_the_window_are_forgotten(alice):
    start = time.time()
    with mock.patch("django.core.cache.backends.locmem.time.time", return_value=start):
        fail("alice", 4)
    later = start + 15 * 60 + 1
    with mock.patch("django.core.cache.backends.locmem.time.time", return_value=later):
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


REDIS_URL = "redis://127.0.0.1:6379/12"


def _redis_up() -> bool:
    try:
        return redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError:
        return False


@pytest.mark.skipif(not _redis_up(), reason="needs Redis on 127.0.0.1:6379")
def test_workers_sharing_a_redis_cache_share_the_pause(alice):
    """Failures counted by one process (another gunicorn worker) pause sign-in in this one."""
    settings_cache = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
        }
    }
    redis.Redis.from_url(REDIS_URL).flushdb()
    script = (
        "from accounts.throttle import login_failure_record\n"
        "for _ in range(5): login_failure_record(username='alice', ip='10.9.9.9')\n"
    )
    env = {**os.environ, "CACHE_URL": REDIS_URL.replace("redis://", "rediscache://")}
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    try:
        with override_settings(CACHES=settings_cache):
            assert login_is_locked(username="alice", ip="10.9.9.9")
            client, response = attempt("alice", PASSWORD, ip="10.9.9.9")
            assert response.status_code == 429 and not signed_in(client)
            client, response = attempt("alice", PASSWORD, ip="10.9.9.8")
            assert response.status_code == 302
    finally:
        redis.Redis.from_url(REDIS_URL).flushdb()
