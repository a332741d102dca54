"""Test runs: the local settings with a fixed key and fast password hashing."""

from config.settings.local import *  # noqa: F403

SECRET_KEY = "test-only-key-not-secret-" + "x" * 30
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
