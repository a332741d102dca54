"""One machine, no servers: SQLite under var/, a folder as the broker, a key kept in var/."""

import secrets

from config.settings.base import *  # noqa: F403
from config.settings.base import VAR_DIR, env

DEBUG = env.bool("DEBUG", default=True)


def _local_secret_key() -> str:
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = env.str("SECRET_KEY", default="") or _local_secret_key()
