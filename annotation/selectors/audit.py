"""The audit log: filtering what coordinators and researchers did, and its export rows."""

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_date
from django.utils.translation import gettext as _

from annotation.models import Benchmark
from core.audit import registered_actions
from core.models import AuditEvent

EXPORT_CHUNK = 500
EXPORT_COLUMNS = ("when", "actor", "action", "benchmark", "case", "version", "details")


@dataclass(frozen=True)
class AuditFilter:
    action: str = ""
    actor: str = ""
    benchmark: Benchmark | None = None
    since: dt.date | None = None
    until: dt.date | None = None

    def query(self) -> dict[str, str]:
        """The filter as query parameters (for pager and export links)."""
        values = {
            "action": self.action,
            "actor": self.actor,
            "benchmark": self.benchmark.slug if self.benchmark else "",
            "since": self.since.isoformat() if self.since else "",
            "until": self.until.isoformat() if self.until else "",
        }
        return {key: value for key, value in values.items() if value}


def _date(params: Mapping, name: str, label: str, errors: list[str]) -> dt.date | None:
    text = params.get(name, "").strip()
    if not text:
        return None
    try:
        value = parse_date(text)
    except ValueError:  # the form of a date, but no such day
        value = None
    if value is None:
        errors.append(_("“%(value)s” is not a date (%(field)s).") % {"value": text, "field": label})
    return value


def audit_filter_parse(params: Mapping) -> tuple[AuditFilter, list[str]]:
    """The filter the query asks for, and a message for each part that makes no sense
    (that part is then ignored)."""
    errors: list[str] = []
    action = params.get("action", "").strip()
    if action and action not in {str(known) for known in registered_actions()}:
        errors.append(_("“%(value)s” is not an action of the log.") % {"value": action})
        action = ""
    actor = params.get("actor", "").strip()
    slug = params.get("benchmark", "").strip()
    benchmark = Benchmark.objects.filter(slug=slug).first() if slug else None
    if slug and benchmark is None:
        errors.append(_("There is no benchmark “%(value)s”.") % {"value": slug})
    since = _date(params, "since", _("From"), errors)
    until = _date(params, "until", _("To"), errors)
    if since and until and since > until:
        errors.append(_("The start date is after the end date."))
        since = until = None
    return AuditFilter(action, actor, benchmark, since, until), errors


def _day_start(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def audit_events(audit_filter: AuditFilter | None = None) -> QuerySet[AuditEvent]:
    f = audit_filter or AuditFilter()
    events = AuditEvent.objects.select_related("actor", "benchmark", "case", "version")
    if f.action:
        events = events.filter(action=f.action)
    if f.actor:
        username = get_user_model().USERNAME_FIELD
        events = events.filter(**{f"actor__{username}": f.actor})
    if f.benchmark:
        events = events.filter(benchmark=f.benchmark)
    if f.since:
        events = events.filter(created__gte=_day_start(f.since))
    if f.until:  # the whole of the last day
        events = events.filter(created__lt=_day_start(f.until + dt.timedelta(days=1)))
    return events


def audit_actors() -> list[str]:
    """Usernames of everyone who appears in the log, for the filter's choices."""
    users = get_user_model().objects.filter(
        pk__in=AuditEvent.objects.filter(actor__isnull=False).values("actor")
    )
    return sorted(user.get_username() for user in users)


def audit_export_rows(events: QuerySet[AuditEvent]) -> Iterator[dict]:
    for event in events.iterator(chunk_size=EXPORT_CHUNK):
        yield {
            "when": timezone.localtime(event.created).isoformat(),
            "actor": event.actor.get_username() if event.actor else None,
            "action": event.action,
            "benchmark": event.benchmark.slug if event.benchmark else None,
            "case": event.case.external_id if event.case else None,
            "version": event.version.number if event.version else None,
            "details": event.details,
        }
