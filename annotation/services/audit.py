from annotation.models import AuditEvent, Benchmark, Case, RubricVersion


def audit_record(
    *,
    actor,
    action: AuditEvent.Action,
    benchmark: Benchmark | None = None,
    case: Case | None = None,
    version: RubricVersion | None = None,
    details: dict | None = None,
) -> AuditEvent:
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
