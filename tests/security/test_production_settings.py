"""Production settings: secure cookies and security headers, read from the settings and seen
on real responses of gunicorn running config.settings.production."""

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEY = "k" * 20 + "-Zq8#long-random-production-key-9x!"
PASSWORD = "prod-pass-123"


def production_env(var_dir: Path, **extra: str) -> dict[str, str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "SECRET_KEY",
            "DEBUG",
            "DJANGO_SETTINGS_MODULE",
            "DJANGO_ALLOW_ASYNC_UNSAFE",
            "DATABASE_URL",
            "CACHE_URL",
        }
    }
    return {
        **clean,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": KEY,
        "ALLOWED_HOSTS": "127.0.0.1",
        "CONCORD_VAR_DIR": str(var_dir),
        **extra,
    }


def manage(var_dir: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=production_env(var_dir, **extra),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_production_settings_secure_cookies_and_headers(tmp_path):
    names = [
        "SESSION_COOKIE_SECURE",
        "SESSION_COOKIE_HTTPONLY",
        "CSRF_COOKIE_SECURE",
        "SECURE_HSTS_SECONDS",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS",
        "SECURE_CONTENT_TYPE_NOSNIFF",
        "SECURE_REFERRER_POLICY",
        "SECURE_SSL_REDIRECT",
        "X_FRAME_OPTIONS",
        "DEBUG",
    ]
    script = (
        "import json; from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n) for n in {names!r}}})); "
        "print(json.dumps(settings.CACHES['default']))"
    )
    out = manage(tmp_path, "shell", "-c", script).stdout.strip().splitlines()
    values, cache = json.loads(out[-2]), json.loads(out[-1])
    assert values == {
        "SESSION_COOKIE_SECURE": True,
        "SESSION_COOKIE_HTTPONLY": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 31536000,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
        "SECURE_CONTENT_TYPE_NOSNIFF": True,
        "SECURE_REFERRER_POLICY": "same-origin",
        "SECURE_SSL_REDIRECT": True,
        "X_FRAME_OPTIONS": "DENY",
        "DEBUG": False,
    }
    # Shared by every gunicorn worker on the machine, unlike the per-process default.
    assert cache["BACKEND"] == "django.core.cache.backends.filebased.FileBasedCache"
    assert Path(cache["LOCATION"]).is_relative_to(tmp_path)


def test_production_cache_url_selects_redis(tmp_path):
    script = "import json; from django.conf import settings; print(json.dumps(settings.CACHES))"
    out = manage(tmp_path, "shell", "-c", script, CACHE_URL="rediscache://127.0.0.1:6379/12")
    cache = json.loads(out.stdout.strip().splitlines()[-1])["default"]
    assert cache["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert cache["LOCATION"] == "redis://127.0.0.1:6379/12"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory):
    """gunicorn with the production settings behind a (pretend) TLS proxy: an SQLite
    database with one user, collected static files."""
    var_dir = tmp_path_factory.mktemp("prod")
    manage(var_dir, "migrate", "--noinput")
    manage(var_dir, "collectstatic", "--noinput")
    manage(
        var_dir,
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model; "
        f"get_user_model().objects.create_user(username='ops', password={PASSWORD!r})",
    )
    port = _free_port()
    log = (var_dir / "gunicorn.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}", "-w", "2"],
        cwd=ROOT,
        env=production_env(var_dir),
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


def request(port: int, method: str, path: str, headers=None, body: str | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


HTTPS = {"X-Forwarded-Proto": "https"}


def cookies(response) -> dict[str, str]:
    """Set-Cookie headers by cookie name, as sent (attributes included)."""
    return {
        header.split("=", 1)[0]: header for header in response.headers.get_all("Set-Cookie") or []
    }


def test_plain_http_is_redirected_to_https(gunicorn):
    response = request(gunicorn, "GET", "/login/")
    assert response.status == 301
    assert response.headers["Location"] == f"https://127.0.0.1:{gunicorn}/login/"


def test_responses_carry_the_security_headers(gunicorn):
    response = request(gunicorn, "GET", "/login/", HTTPS)
    assert response.status == 200
    assert response.headers["Strict-Transport-Security"] == (
        "max-age=31536000; includeSubDomains; preload"
    )
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy.split("script-src", 1)[1].split(";", 1)[0]
    csrf = cookies(response)["csrftoken"]
    assert "; Secure" in csrf and "SameSite=Lax" in csrf


def test_signing_in_sets_a_secure_http_only_session_cookie(gunicorn):
    page = request(gunicorn, "GET", "/login/", HTTPS)
    jar = SimpleCookie()
    jar.load(cookies(page)["csrftoken"])
    token = jar["csrftoken"].value
    origin = f"https://127.0.0.1:{gunicorn}"
    response = request(
        gunicorn,
        "POST",
        "/login/",
        {
            **HTTPS,
            "Origin": origin,
            "Referer": origin + "/login/",
            "Cookie": f"csrftoken={token}",
            "Content-Type": "application/x-www-form-urlencoded",
        },
        urlencode({"username": "ops", "password": PASSWORD, "csrfmiddlewaretoken": token}),
    )
    assert response.status == 302, response.status
    session = cookies(response)["sessionid"]
    assert "; Secure" in session and "; HttpOnly" in session
    assert re.search(r"(?i)samesite=lax", session)
