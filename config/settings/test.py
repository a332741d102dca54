"""Test runs: the local settings with a fixed key and fast password hashing."""

from config.settings.local import *  # noqa: F403

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
