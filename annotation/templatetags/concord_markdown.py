"""`{{ text|markdown }}`: coordinators' Markdown as sanitised HTML (see annotation.markdown)."""

from django import template

from annotation.markdown import render_markdown

register = template.Library()


@register.filter
def markdown(value) -> str:
    return render_markdown("" if value is None else str(value))
