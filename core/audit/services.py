from django.db.models import Model

from core.audit.models import AuditEvent
from core.audit.registry import action_check


def audit_record(
    *,
    actor,
    action: str,
    benchmark: Model | None = None,
    case: Model | None = None,
    version: Model | None = None,
    details: dict | None = None,
) -> AuditEvent:
    """Write one event of the log. `action` must be registered (core.audit.register); an
    unknown one raises UnknownAuditAction before anything is written. A case's event is also
    its benchmark's, so the log's benchmark filter finds it."""
    action_check(action)
    if benchmark is None and case is not None:
        benchmark = case.benchmark
    return AuditEvent.objects.create(
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        action=action,
        benchmark=benchmark,
        case=case,
        version=version,
        details=details or {},
    )
