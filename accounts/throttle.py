"""Login throttling, in two layers, counted in the database (`LoginCounter`) so every web
worker on every machine shares the counts and each is taken under a row lock.

- Per username *and* address: `LOGIN_FAILURE_LIMIT` failures within the window pause that
  pair for `LOGIN_LOCKOUT_SECONDS`. An attacker guessing one account is stopped without
  locking its owner out from anywhere else; one address trying many accounts gets one budget
  per account.
- Per username, from browsers that never signed in with it (a signed cookie tells the
  others): after `LOGIN_USERNAME_FREE_FAILURES` failures from anywhere, each further failure
  pauses such browsers for twice as long as the one before, from
  `LOGIN_USERNAME_BACKOFF_SECONDS` up to the lockout. This slows guessing spread over many
  addresses, while the owner's own browser is never paused by it.

An attempt takes its place in the counts *before* its password is checked, so a burst of
parallel attempts gets at most the limit of them checked. Unknown usernames count like known
ones, so a pause reveals nothing about who exists.
"""

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.crypto import salted_hmac

from accounts.models import LoginCounter

ADDRESS, USERNAME = "address", "username"
DEVICE_COOKIE = "concord_device"
DEVICE_SALT = "concord.login-device"
DEVICE_DAYS = 365
DEVICE_NAMES_KEPT = 8  # usernames a browser remembers having signed in with


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


@dataclass(frozen=True)
class Refusal:
    """Why an attempt was not checked: the pair (`ADDRESS`) or the username (`USERNAME`)
    is paused until `until`."""

    scope: str
    until: datetime

    @property
    def minutes(self) -> int:
        return max(1, math.ceil((self.until - timezone.now()).total_seconds() / 60))


def _digest(*parts: str) -> str:
    # Keyed by the secret: the table holds no username, and no one can tell one from its key.
    return salted_hmac("concord.login-throttle", "\x00".join(parts)).hexdigest()


def _pair_key(username: str, ip: str) -> str:
    return _digest(ADDRESS, username, ip)


def _username_key(username: str) -> str:
    return _digest(USERNAME, username)


def _row(key: str, now: datetime) -> LoginCounter:
    """The counter, locked for this transaction; a fresh one when it is new or its window
    has passed."""
    row = LoginCounter.objects.select_for_update().filter(key=key).first()
    if row is None:
        try:
            with transaction.atomic():  # a savepoint: a parallel attempt may create it first
                LoginCounter.objects.create(key=key, count=0, window_ends=now)
        except IntegrityError:
            pass
        row = LoginCounter.objects.select_for_update().get(key=key)
    if row.window_ends <= now:
        row.count, row.locked_until = 0, None
    return row


def _paused(row: LoginCounter, now: datetime) -> bool:
    return row.locked_until is not None and row.locked_until > now


def _username_pause(failures: int) -> timedelta:
    beyond = failures - settings.LOGIN_USERNAME_FREE_FAILURES
    seconds = settings.LOGIN_USERNAME_BACKOFF_SECONDS * 2 ** min(beyond, 20)
    return timedelta(seconds=min(seconds, settings.LOGIN_LOCKOUT_SECONDS))


def login_attempt_begin(*, username: str, ip: str, known_device: bool) -> Refusal | None:
    """Take this attempt's place in the counts; a Refusal when its password must not be
    checked (and then nothing is counted)."""
    now = timezone.now()
    with transaction.atomic():
        refusal = _begin(username, ip, known_device, now)
        if refusal is not None:
            transaction.set_rollback(True)
    return refusal


def _begin(username: str, ip: str, known_device: bool, now: datetime) -> Refusal | None:
    pair = _row(_pair_key(username, ip), now)
    if _paused(pair, now):
        return Refusal(ADDRESS, pair.locked_until)
    if pair.count >= settings.LOGIN_FAILURE_LIMIT:
        # The limit's worth of attempts are being checked at this moment: the last of them
        # pauses the pair if it fails too.
        return Refusal(ADDRESS, now + timedelta(seconds=settings.LOGIN_LOCKOUT_SECONDS))
    if not known_device:
        user = _row(_username_key(username), now)
        if _paused(user, now):
            return Refusal(USERNAME, user.locked_until)
        user.count += 1
        # Failures are forgotten after a quiet window, not a fixed one: guessing spread
        # thinly over time stays slow.
        user.window_ends = now + timedelta(seconds=settings.LOGIN_USERNAME_WINDOW_SECONDS)
        if user.count >= settings.LOGIN_USERNAME_FREE_FAILURES:
            # Paused at once, so parallel attempts wait too; a success gives it back.
            user.locked_until = now + _username_pause(user.count)
        user.save()
    if pair.count == 0:
        pair.window_ends = now + timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_SECONDS)
    pair.count += 1
    pair.save()
    return None


def login_attempt_failed(*, username: str, ip: str) -> Refusal | None:
    """The password was wrong; a Refusal when this failure paused the pair."""
    now = timezone.now()
    with transaction.atomic():
        pair = _row(_pair_key(username, ip), now)
        if pair.count >= settings.LOGIN_FAILURE_LIMIT and not _paused(pair, now):
            pair.locked_until = now + timedelta(seconds=settings.LOGIN_LOCKOUT_SECONDS)
            # After the pause the pair starts again with a full budget.
            pair.window_ends = pair.locked_until
            pair.save()
    # Counters whose time is over, so the table holds only what is still counting.
    LoginCounter.objects.filter(window_ends__lt=now - timedelta(days=1)).delete()
    return Refusal(ADDRESS, pair.locked_until) if _paused(pair, now) else None


def login_attempt_succeeded(*, username: str, ip: str, known_device: bool) -> None:
    """The password was right: the pair's failures are forgotten, and the attempt gives its
    place in the username's count back."""
    now = timezone.now()
    with transaction.atomic():
        LoginCounter.objects.filter(key=_pair_key(username, ip)).delete()
        if known_device:
            return
        user = LoginCounter.objects.select_for_update().filter(key=_username_key(username))
        row = user.first()
        if row is None or row.window_ends <= now:
            return
        row.count = max(0, row.count - 1)
        if row.count < settings.LOGIN_USERNAME_FREE_FAILURES:
            row.locked_until = None
        row.save()


def login_is_paused(*, username: str, ip: str, known_device: bool = False) -> Refusal | None:
    """Whether an attempt would be refused now (without counting one)."""
    now = timezone.now()
    pair = LoginCounter.objects.filter(key=_pair_key(username, ip), window_ends__gt=now).first()
    if pair is not None and _paused(pair, now):
        return Refusal(ADDRESS, pair.locked_until)
    if not known_device:
        user = LoginCounter.objects.filter(key=_username_key(username), window_ends__gt=now)
        row = user.first()
        if row is not None and _paused(row, now):
            return Refusal(USERNAME, row.locked_until)
    return None


# -- Browsers that signed in before -----------------------------------------------------


def _device_name(username: str) -> str:
    return salted_hmac(DEVICE_SALT, username).hexdigest()[:24]


def _device_names(request: HttpRequest) -> list[str]:
    value = request.COOKIES.get(DEVICE_COOKIE)
    if not value:
        return []
    try:
        names = signing.loads(value, salt=DEVICE_SALT, max_age=timedelta(days=DEVICE_DAYS))
    except signing.BadSignature:
        return []
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def device_known(request: HttpRequest, username: str) -> bool:
    """Whether this browser has signed in with `username` before."""
    return _device_name(username) in _device_names(request)


def device_remember(request: HttpRequest, username: str) -> None:
    """Mark the response to this request to set the cookie (see `LoginDeviceMiddleware`)."""
    request.login_device_name = _device_name(username)


def device_cookie_set(request: HttpRequest, response: HttpResponse) -> None:
    name = getattr(request, "login_device_name", None)
    if name is None:
        return
    names = [n for n in _device_names(request) if n != name] + [name]
    response.set_cookie(
        DEVICE_COOKIE,
        signing.dumps(names[-DEVICE_NAMES_KEPT:], salt=DEVICE_SALT),
        max_age=DEVICE_DAYS * 24 * 3600,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
