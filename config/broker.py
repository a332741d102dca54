"""Can the Celery workers be reached? Asked before anything is handed to them."""

from urllib.parse import urlsplit, urlunsplit

from django.utils.translation import gettext as _

from config.celery import app as celery_app

CHECK_TIMEOUT_SECONDS = 3.0


class BrokerUnreachable(Exception):
    pass


def broker_url_for_people(url: str) -> str:
    """The broker's URL without its user name and password."""
    parts = urlsplit(url)
    if not parts.hostname:
        return f"{parts.scheme}://" if parts.scheme else url
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def broker_check(*, timeout: float = CHECK_TIMEOUT_SECONDS) -> None:
    """Raise BrokerUnreachable, with a message naming the broker, when it does not answer.

    Tasks that run in the calling process need no broker, so nothing is checked then."""
    if celery_app.conf.task_always_eager:
        return
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=0, timeout=timeout)
    except Exception as exc:  # any transport error means the workers cannot be reached
        raise BrokerUnreachable(
            _(
                "The workers are not reachable: the task broker at %(url)s did not answer "
                "(%(error)s). Nothing was started; check that the broker is running."
            )
            % {"url": broker_url_for_people(celery_app.conf.broker_url), "error": _reason(exc)}
        ) from exc


def _reason(exc: BaseException) -> str:
    # kombu wraps the socket error; its cause says what happened ("connection refused").
    cause = exc.__cause__ or exc.__context__ or exc
    text = str(cause).strip().rstrip(".") or cause.__class__.__name__
    password = urlsplit(celery_app.conf.broker_url).password
    if password:
        text = text.replace(password, "***")
    return text[:200]
