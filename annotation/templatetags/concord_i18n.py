"""Showing names the application itself writes (role names, the demo benchmark, notes of
imported rubric versions) in the reader's language, where the catalog has a translation.
The report's and leaderboard's wording has its own filters (leaderboard_wording).

Names people type stay as they wrote them: only exact catalog entries are replaced.
"""

from django import template
from django.utils.translation import gettext

register = template.Library()


@register.filter
def translated(value) -> str:
    """The catalog's translation of `value`, or `value` itself when there is none."""
    text = "" if value is None else str(value)
    return gettext(text) if text else text


@register.filter
def version_note(version) -> str:
    """A rubric version's note; the note an import writes is shown translated."""
    if version.source == version.Source.IMPORT:
        return translated(version.note)
    return version.note


@register.filter
def import_issue(issue) -> str:
    """A problem of an imported file, located and in the reader's language."""
    from annotation.import_text import issue_text

    return issue_text(issue)
