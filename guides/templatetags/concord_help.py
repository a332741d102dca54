"""`{% help_link "researcher" "raw_agreement" %}`: a small "?" that opens a guide at the
section explaining what it stands next to."""

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext

register = template.Library()


@register.simple_tag
def help_link(document: str, section: str = "") -> str:
    href = reverse("help-page", args=[document]) + (f"#{section}" if section else "")
    return format_html(
        '<a class="help-link" href="{}" title="{}" aria-label="{}">?</a>',
        href,
        gettext("What does this mean?"),
        gettext("Help: what does this mean?"),
    )
