"""`{{ text|markdown }}`: coordinators' Markdown as sanitised HTML (see annotation.markdown).

The Markdown parser is imported on the first text rendered: the system checks import
every template tag library, and only the guideline pages need it."""

from django import template

register = template.Library()


@register.filter
def markdown(value) -> str:
    from annotation.markdown import render_markdown

    return render_markdown("" if value is None else str(value))
