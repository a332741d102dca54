import re

from django.core.exceptions import ImproperlyConfigured
from django.utils.functional import Promise

ACTION_MAX_LENGTH = 40
# "area.what_happened": the area groups the log's filter and keeps two apps' names apart.
_VALUE = re.compile(r"[a-z]+\.[a-z_]+")


class AuditAction(str):
    """An action's stored value (it compares and filters as that string) with its label."""

    label: str | Promise

    def __new__(cls, value: str, label: str | Promise) -> "AuditAction":
        action = super().__new__(cls, value)
        action.label = label
        return action

    @property
    def value(self) -> str:
        return str(self)


class UnknownAuditAction(ValueError):
    pass


_ACTIONS: dict[str, AuditAction] = {}


def register(value: str, label: str | Promise) -> AuditAction:
    """Add an action to the log's vocabulary and return it (for the app's constants).
    Registering the same value again with the same label is harmless; another label is a
    second meaning for one stored value and is refused."""
    if not _VALUE.fullmatch(value) or len(value) > ACTION_MAX_LENGTH:
        raise ImproperlyConfigured(
            f"audit action {value!r} must look like 'area.what_happened' (lower case) "
            f"and have at most {ACTION_MAX_LENGTH} characters"
        )
    known = _ACTIONS.get(value)
    if known is not None:
        if known.label != label:
            raise ImproperlyConfigured(
                f"audit action {value!r} is already registered with the label {known.label!r}"
            )
        return known
    action = _ACTIONS[value] = AuditAction(value, label)
    return action


def registered_actions() -> list[AuditAction]:
    """Every action, in the order the apps registered them (the log's filter lists them so)."""
    return list(_ACTIONS.values())


def action_check(value: str) -> AuditAction:
    """The registered action stored as `value`; anything else is refused by name."""
    try:
        return _ACTIONS[str(value)]
    except KeyError:
        raise UnknownAuditAction(
            f"{value!r} is not a registered audit action; register it with core.audit.register "
            "in the app that records it"
        ) from None


def action_label(value: str) -> str | Promise:
    """What the log shows for a stored value: its label, or the value itself for an action no
    app registers any more (the row stays readable)."""
    known = _ACTIONS.get(value)
    return known.label if known is not None else value
