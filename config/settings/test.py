"""Test runs: the local settings with a fixed key and fast password hashing."""

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

# Each pytest-xdist worker gets its own var/ folder (test database file, broker folders,
# exports, imports), so workers never see each other's files. A process a test starts
# inherits the marker and keeps whatever folder the test gave it.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if _WORKER and os.environ.get("CONCORD_XDIST_VAR") != _WORKER:
    _ROOT = Path(os.environ.get("CONCORD_VAR_DIR", Path(__file__).resolve().parents[2] / "var"))
    _OWN = _ROOT / f"xdist-{_WORKER}"
    for _folder in ("broker", "broker-processed", "broker-control", "staticfiles"):
        (_OWN / _folder).mkdir(parents=True, exist_ok=True)
    os.environ["CONCORD_VAR_DIR"] = str(_OWN)
    os.environ["CONCORD_XDIST_VAR"] = _WORKER
    # And a Redis database of its own when the broker is Redis (the scale-out tests' worker
    # processes), counted down from the one named: no worker takes another's tasks.
    _BROKER = urlsplit(os.environ.get("CELERY_BROKER_URL", ""))
    if _BROKER.scheme in ("redis", "rediss"):
        _DB = (int(_BROKER.path.strip("/") or 0) - int(_WORKER.removeprefix("gw"))) % 16
        os.environ["CELERY_BROKER_URL"] = urlunsplit(_BROKER._replace(path=f"/{_DB}"))

from config.settings.local import *  # noqa: E402, F403

SECRET_KEY = "test-only-key-not-secret-" + "x" * 30
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Background tasks run in the calling process unless a test starts real workers.
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=True)  # noqa: F405
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# A file, not memory: lanes in threads and worker processes share the test database the way
# they share a real one.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-concord.sqlite3")}  # noqa: F405
else:
    # A test database need not outlive a crash: a commit returns without waiting for the
    # disk, which the tests that commit (live servers, workers, flushes) wait on otherwise.
    # Its tables are small and never analysed, so the planner's guesses would have queries
    # compiled (JIT) that run in a millisecond.
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = (  # noqa: F405
        "-c synchronous_commit=off -c jit=off"
    )
