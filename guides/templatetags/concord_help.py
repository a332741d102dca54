"""`{% help_link "researcher" "raw_agreement" %}`: a small "?" that opens a guide at the
section explaining what it stands next to."""

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import get_language, gettext

from guides.page_help import page_help_href

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


@register.simple_tag(takes_context=True)
def page_help_url(context) -> str:
    """The Help link of the page being rendered: the guide's section about this page."""
    request = context.get("request")
    match = getattr(request, "resolver_match", None)
    return page_help_href(match.url_name if match else None, get_language())
