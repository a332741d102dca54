"""Where a judge's key may come from and where a request may go.

A configuration names the environment variable holding its API key and the endpoint the
key is sent to. Without limits, a coordinator could name `DATABASE_URL` and an endpoint of
their own, and the worker would send the database password there. So:

- a key variable is an upper-case identifier matching the operator's pattern
  (`CONCORD_JUDGE_KEY_VARIABLES`; default `OPENAI_API_KEY` or `CONCORD_JUDGE_KEY_*`) and
  never one of the application's own settings, whatever the pattern says;
- something that looks like a key rather than a name is refused (and never shown back);
- a base URL is http(s); when the operator lists hosts (`CONCORD_JUDGE_BASE_URLS`, required
  in production) its host must be one of them, and loopback, private, link-local and other
  non-public addresses are refused unless `CONCORD_JUDGE_ALLOW_PRIVATE_URLS` allows them
  (the default locally, where the simulator and local model servers live).

Checked when a version or configuration is saved and again by the worker just before the
key is read, so a row stored before these rules existed cannot leak either.
"""

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

IDENTIFIER = re.compile(r"[A-Z][A-Z0-9_]{0,63}")
# Environment variables the application itself reads (see the README's table), beyond the
# names of its Django settings: none of them may be sent anywhere as a key.
APP_VARIABLES = frozenset(
    {
        "DATABASE_URL",
        "CELERY_BROKER_URL",
        "CACHE_URL",
        "SECRET_KEY",
        "DJANGO_SETTINGS_MODULE",
        "DB_USER",
        "DB_PASSWORD",
        "DB_NAME",
        "DB_HOST",
        "CONCORD_VAR_DIR",
        "CONCORD_EXPORT_ROOT",
        "CONCORD_JUDGE_KEY_VARIABLES",
        "CONCORD_JUDGE_BASE_URLS",
        "CONCORD_JUDGE_ALLOW_PRIVATE_URLS",
    }
)
_KEY_PREFIXES = ("sk-", "sk_", "AIza", "ghp_", "gho_", "xox", "hf_", "AKIA", "eyJ")


class EndpointRefused(Exception):
    """A key variable or base URL the rules refuse; the message says why."""


def looks_like_a_key(value: str) -> bool:
    if value.startswith(_KEY_PREFIXES):
        return True
    compact = value.replace("-", "").replace("_", "")
    # Long runs of letters and digits mixed, as keys and tokens are, and names rarely are.
    hexish = re.fullmatch(r"[0-9a-fA-F]{20,}", compact) is not None
    mixed = len(compact) >= 20 and any(c.isdigit() for c in compact) and "_" not in value
    return hexish or mixed


def _reserved(name: str) -> bool:
    return name in APP_VARIABLES or (name.isupper() and hasattr(settings, name))


def key_variable_check(name: str) -> None:
    """Raises EndpointRefused unless `name` may hold a judge's API key ("" means no key)."""
    if not name:
        return
    if looks_like_a_key(name):
        raise EndpointRefused(
            _(
                "This looks like an API key. Enter the name of the environment variable "
                "that holds it (upper-case letters, digits and _), never the key itself."
            )
        )
    if not IDENTIFIER.fullmatch(name):
        raise EndpointRefused(
            _(
                "An environment variable's name is upper-case letters, digits and _, "
                "starting with a letter (at most 64)."
            )
        )
    if _reserved(name):
        raise EndpointRefused(
            _(
                "%(name)s is one of Concord's own settings; it is never sent to a judge. Use "
                "OPENAI_API_KEY or a variable named CONCORD_JUDGE_KEY_…"
            )
            % {"name": name}
        )
    if not re.fullmatch(settings.JUDGE_KEY_VARIABLES, name):
        raise EndpointRefused(
            _(
                "%(name)s is not allowed to hold a judge's key here. The operator allows: "
                "%(pattern)s."
            )
            % {"name": name, "pattern": settings.JUDGE_KEY_VARIABLES}
        )


def _host_allowed(host: str, allowed: Iterable[str]) -> bool:
    for entry in allowed:
        entry = entry.strip().lower()
        if not entry:
            continue
        if entry.startswith("*."):
            if host.endswith(entry[1:]):
                return True
        elif host == entry:
            return True
    return False


def _addresses(host: str) -> list[str]:
    try:
        return sorted({info[4][0] for info in socket.getaddrinfo(host, None)})
    except (OSError, UnicodeError):
        return []


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    return ip.is_global and not ip.is_multicast


def base_url_check(url: str, *, resolve: Callable[[str], list[str]] = _addresses) -> None:
    """Raises EndpointRefused unless requests may be sent to `url` ("" is the SDK's default,
    api.openai.com, which is checked as that)."""
    parts = urlsplit(url or "https://api.openai.com/v1")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointRefused(_("The base URL must be an http or https address."))
    if parts.username or parts.password:
        raise EndpointRefused(_("The base URL must not carry a user name or password."))
    host = parts.hostname.lower()
    allowed = settings.JUDGE_BASE_URLS
    if allowed and not _host_allowed(host, allowed):
        raise EndpointRefused(
            _(
                "Judge requests may not be sent to %(host)s on this server. The operator "
                "allows: %(hosts)s (CONCORD_JUDGE_BASE_URLS)."
            )
            % {"host": host, "hosts": ", ".join(allowed)}
        )
    if not allowed and settings.JUDGE_BASE_URLS_REQUIRED:
        raise EndpointRefused(
            _(
                "No judge endpoint is allowed on this server yet: the operator lists the "
                "allowed hosts in CONCORD_JUDGE_BASE_URLS."
            )
        )
    if settings.JUDGE_ALLOW_PRIVATE_URLS:
        return
    addresses = resolve(host)
    if not addresses:
        raise EndpointRefused(_("The host %(host)s could not be resolved.") % {"host": host})
    if not all(_is_public(address) for address in addresses):
        raise EndpointRefused(
            _(
                "%(host)s is a loopback, private or link-local address; judge requests may "
                "not go there on this server (CONCORD_JUDGE_ALLOW_PRIVATE_URLS)."
            )
            % {"host": host}
        )
