"""The login throttle through a real gunicorn, set up as the deployment guide sets
it up (its environment file's NUM_PROXIES, its web command's four workers), with this test
in the place of the reverse proxy: it sends each client's address in X-Forwarded-For.

- An attacker's failures pause the attacker's address, never the account's owner elsewhere.
- A burst of parallel wrong passwords across the workers ends with the address paused and
  fewer "wrong password" answers than the limit (tests/security/test_login_burst.py counts
  the passwords actually checked).
"""

import http.client
import re
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from http.cookies import SimpleCookie
from urllib.parse import urlencode

import pytest

from tests.deploy.guide import deployment_blocks
from tests.security.test_production_settings import ROOT, manage, production_env

PASSWORD = "owner-pass-123"
LIMIT = 5  # LOGIN_FAILURE_LIMIT's default
PAUSED = "Too many failed sign-in attempts"
MISMATCH = "Your username and password didn"
BURST = 50


def guide_environment() -> dict[str, str]:
    """The settings of the deployment guide's environment file that concern the web server here."""
    block = deployment_blocks()["environment"]
    values = dict(re.findall(r"^([A-Z][A-Z0-9_]*)=(\S*)", block, re.MULTILINE))
    return {name: values[name] for name in ("NUM_PROXIES",) if name in values}


def guide_workers() -> str:
    return re.search(r"--workers (\d+)", deployment_blocks()["web"]).group(1)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    var_dir = tmp_path_factory.mktemp("proxied")
    env = guide_environment()
    manage(var_dir, "migrate", "--noinput", **env)
    manage(var_dir, "collectstatic", "--noinput", **env)
    users = ", ".join(repr(name) for name in ("alice", "bob", "carol", "dave"))
    manage(
        var_dir,
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model\n"
        f"for name in ({users},):\n"
        f"    get_user_model().objects.create_user(username=name, password={PASSWORD!r})",
        **env,
    )
    port = _free_port()
    log = (var_dir / "gunicorn.log").open("w")
    command = [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(
        [*command, "--workers", guide_workers(), "--timeout", "60"],
        cwd=ROOT,
        env=production_env(var_dir, **env),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None:
                    break
                time.sleep(0.1)
        assert proc.poll() is None, (var_dir / "gunicorn.log").read_text()
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


class Proxy:
    """Forwards sign-ins to gunicorn as the documented reverse proxy does: over HTTPS (so
    X-Forwarded-Proto), with the client's address appended to X-Forwarded-For."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.origin = f"https://127.0.0.1:{port}"
        page = self._send("GET", "/login/", {}, None, client="192.0.2.1")
        jar = SimpleCookie()
        jar.load(page.getheader("Set-Cookie"))
        self.token = jar["csrftoken"].value

    def _send(self, method, path, headers, body, *, client: str, forwarded: str = ""):
        chain = f"{forwarded}, {client}" if forwarded else client
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        conn.request(
            method,
            path,
            body=body,
            headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": chain, **headers},
        )
        response = conn.getresponse()
        response.text = response.read().decode("utf-8", "replace")
        conn.close()
        return response

    def sign_in(self, username: str, password: str, *, client: str, forwarded: str = ""):
        """(status, page text) of one sign-in from `client`; `forwarded` is what the client
        itself put in X-Forwarded-For (the proxy keeps it and appends the real address)."""
        response = self._send(
            "POST",
            "/login/",
            {
                "Origin": self.origin,
                "Referer": self.origin + "/login/",
                "Cookie": f"csrftoken={self.token}",
                "Content-Type": "application/x-www-form-urlencoded",
            },
            urlencode(
                {"username": username, "password": password, "csrfmiddlewaretoken": self.token}
            ),
            client=client,
            forwarded=forwarded,
        )
        return response.status, response.text


def test_the_documented_settings_read_the_client_address_from_the_proxy():
    assert guide_environment().get("NUM_PROXIES") == "1"


def test_an_attacker_pauses_only_their_own_address(site):
    proxy = Proxy(site)
    attacker, owner = "203.0.113.5", "198.51.100.7"
    answers = [proxy.sign_in("alice", "guess", client=attacker)[0] for _ in range(LIMIT)]
    assert answers == [200] * (LIMIT - 1) + [429]
    status, page = proxy.sign_in("alice", PASSWORD, client=attacker)
    assert status == 429 and PAUSED in page
    # A header of the attacker's choosing in front of the proxy's entry changes nothing.
    status, _ = proxy.sign_in("alice", PASSWORD, client=attacker, forwarded=owner)
    assert status == 429
    # The owner, elsewhere, signs in.
    status, page = proxy.sign_in("alice", PASSWORD, client=owner)
    assert status == 302, page


@pytest.mark.parametrize("username", ["bob", "carol"])
def test_a_burst_of_parallel_wrong_passwords_pauses_the_address_alone(site, username):
    proxy = Proxy(site)
    attacker = "203.0.113.77" if username == "bob" else "203.0.113.78"
    with ThreadPoolExecutor(max_workers=BURST) as pool:
        answers = list(
            pool.map(lambda _: proxy.sign_in(username, "guess", client=attacker), range(BURST))
        )
    wrong = [page for status, page in answers if status == 200 and MISMATCH in page]
    paused = [page for status, page in answers if status == 429 and PAUSED in page]
    assert len(wrong) + len(paused) == BURST
    assert len(wrong) < LIMIT, f"{len(wrong)} answers said the password was wrong"
    assert proxy.sign_in(username, PASSWORD, client=attacker)[0] == 429
    assert proxy.sign_in(username, PASSWORD, client="198.51.100.8")[0] == 302
