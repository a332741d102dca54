from django import template

from accounts.backends import role_names as _role_names

register = template.Library()


@register.filter
def role_names(user) -> list[str]:
    """The signed-in user's role names, read with their permissions (no query of its own)."""
    return _role_names(user)
