"""The audit log's vocabulary. Each app registers the actions it records, with the label the
log shows, when it loads; the log's column keeps no list of choices, so an app adding an action
needs no migration of the log (nor of the app below it that used to own the list)."""

from core.audit.registry import (
    ACTION_MAX_LENGTH,
    AuditAction,
    UnknownAuditAction,
    action_check,
    action_label,
    register,
    registered_actions,
)

__all__ = [
    "ACTION_MAX_LENGTH",
    "AuditAction",
    "UnknownAuditAction",
    "action_check",
    "action_label",
    "register",
    "registered_actions",
]
