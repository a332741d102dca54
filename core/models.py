from core.audit.models import AuditEvent

__all__ = ["AuditEvent"]
