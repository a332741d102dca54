"""A burst of parallel sign-ins with wrong passwords, all at once from one address, gets at
most the limit of them checked: each attempt takes its place in the shared counts before its
password is checked, under a row lock (PostgreSQL) or the write lock (SQLite)."""

import threading

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection
from django.test import Client, override_settings

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from tests.conftest import PASSWORD


class Pbkdf2(PBKDF2PasswordHasher):
    """Production's hasher, with fewer rounds: a check takes long enough (tens of
    milliseconds, outside the interpreter lock) for attempts to overlap, as they do in
    production, where the suite's fast MD5 check would let each finish before the next.
    It counts the passwords it checks: what a guesser gets out of a burst."""

    iterations = 200_000
    checked = 0
    _lock = threading.Lock()

    def verify(self, password, encoded):
        with Pbkdf2._lock:
            Pbkdf2.checked += 1
        return super().verify(password, encoded)


pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("slow_enough_hashing"),
]


@pytest.fixture
def slow_enough_hashing():
    with override_settings(PASSWORD_HASHERS=[f"{__name__}.Pbkdf2"]):
        yield


BURST = 50
LIMIT = 5
MISMATCH = "Your username and password didn"
PAUSED = "Too many failed sign-in attempts"


def burst(username: str, password: str, ip: str) -> list[tuple[int, str]]:
    start = threading.Barrier(BURST)
    answers: list[tuple[int, str]] = []
    lock = threading.Lock()

    def one() -> None:
        client = Client(REMOTE_ADDR=ip)
        start.wait()
        try:
            response = client.post("/login/", {"username": username, "password": password})
            with lock:
                answers.append((response.status_code, response.content.decode()))
        finally:
            connection.close()

    threads = [threading.Thread(target=one) for _ in range(BURST)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.mark.parametrize("round_", range(3))
def test_a_burst_of_wrong_passwords_gets_at_most_the_limit_checked(round_):
    username = f"burst{round_}"
    user_create_with_role(username=username, password=PASSWORD, role=EXPERT)
    Pbkdf2.checked = 0
    answers = burst(username, "guess", "10.9.0.1")
    assert len(answers) == BURST
    assert Pbkdf2.checked <= LIMIT, f"{Pbkdf2.checked} wrong passwords were checked"
    wrong = sum(1 for status, page in answers if status == 200 and MISMATCH in page)
    paused = sum(1 for status, page in answers if status == 429 and PAUSED in page)
    assert wrong + paused == BURST and wrong < LIMIT
    assert (
        Client(REMOTE_ADDR="10.9.0.1")
        .post("/login/", {"username": username, "password": PASSWORD})
        .status_code
        == 429
    )
    assert (
        Client(REMOTE_ADDR="10.9.0.2")
        .post("/login/", {"username": username, "password": PASSWORD})
        .status_code
        == 302
    )
