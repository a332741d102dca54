from django import template

from judging.failure_text import failure_text

register = template.Library()


@register.filter
def failure_reason(message) -> str:
    """A judge call's recorded failure, in the reader's language."""
    return failure_text("" if message is None else str(message))
