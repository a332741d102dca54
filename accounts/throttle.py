"""Login throttling: repeated failed sign-ins for one username from one address pause that
pair for a while. State lives in the Django cache, so every web worker that shares the cache
(Redis or the file cache in production) sees the same counts.

Keyed by username *and* address: an attacker guessing one account is stopped without locking
its owner out from everywhere, and one address trying many accounts gets one budget per
account. Unknown usernames count like known ones, so a lock reveals nothing about who exists.
"""

import hashlib

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    """The caller's address. Behind `NUM_PROXIES` reverse proxies the last proxy's address is
    REMOTE_ADDR and the caller is that many entries from the end of X-Forwarded-For (entries
    further left are whatever the client chose to send, so they are never trusted)."""
    proxies = getattr(settings, "NUM_PROXIES", 0)
    if proxies > 0:
        forwarded = [
            part.strip()
            for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
            if part.strip()
        ]
        if forwarded:
            return forwarded[-min(proxies, len(forwarded))]
    return request.META.get("REMOTE_ADDR", "")


def _keys(username: str, ip: str) -> tuple[str, str]:
    # Hashed: usernames may be long, contain spaces or Chinese characters, which some cache
    # backends do not accept in keys; the hash also keeps usernames out of the cache.
    digest = hashlib.sha256(f"{username}\x00{ip}".encode()).hexdigest()
    return f"login-failures:{digest}", f"login-locked:{digest}"


def login_is_locked(*, username: str, ip: str) -> bool:
    return cache.get(_keys(username, ip)[1]) is not None


def login_failure_record(*, username: str, ip: str) -> bool:
    """Count one failed sign-in; returns True when this failure locked the pair."""
    failures_key, locked_key = _keys(username, ip)
    # The window starts at the first failure: add() only sets the counter when it is absent.
    cache.add(failures_key, 0, timeout=settings.LOGIN_FAILURE_WINDOW_SECONDS)
    try:
        failures = cache.incr(failures_key)
    except ValueError:  # the window expired between add() and incr()
        cache.set(failures_key, 1, timeout=settings.LOGIN_FAILURE_WINDOW_SECONDS)
        failures = 1
    if failures < settings.LOGIN_FAILURE_LIMIT:
        return False
    cache.set(locked_key, True, timeout=settings.LOGIN_LOCKOUT_SECONDS)
    # After the lock expires the pair starts again with a full budget.
    cache.delete(failures_key)
    return True


def login_failures_clear(*, username: str, ip: str) -> None:
    """A successful sign-in forgets earlier failures of the pair."""
    cache.delete(_keys(username, ip)[0])
