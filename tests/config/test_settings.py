import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "DEBUG", "DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**clean, **env},
        timeout=120,
    )


def test_production_settings_pass_the_deployment_check(tmp_path):
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        SECRET_KEY="k" * 20 + "-Zq8#long-random-production-key-9x!",
        ALLOWED_HOSTS="concord.example.org",
        CONCORD_VAR_DIR=str(tmp_path),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key(tmp_path):
    result = manage(
        "check",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        ALLOWED_HOSTS="concord.example.org",
        CONCORD_VAR_DIR=str(tmp_path),
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_local_settings_keep_a_generated_key_under_var(tmp_path):
    script = "from django.conf import settings; print(settings.SECRET_KEY)"
    first = manage("shell", "-c", script, CONCORD_VAR_DIR=str(tmp_path))
    second = manage("shell", "-c", script, CONCORD_VAR_DIR=str(tmp_path))
    assert first.returncode == 0, first.stderr
    key = (tmp_path / "secret_key").read_text().strip()
    assert len(key) >= 50
    assert first.stdout.strip().endswith(key) and second.stdout.strip().endswith(key)
    assert oct((tmp_path / "secret_key").stat().st_mode & 0o777) == "0o600"
