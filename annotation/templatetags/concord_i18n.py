"""Showing names the application itself writes (role names, the demo benchmark, notes of
imported rubric versions) in the reader's language, where the catalog has a translation.

Names people type stay as they wrote them: only exact catalog entries are replaced.
"""

from django import template
from django.utils.translation import get_language, gettext, gettext_lazy, gettext_noop

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


def _taxonomy_names() -> dict[str, dict[str, tuple[str, str]]]:
    # From the built-in taxonomy table, not the database: report groups are keyed by these
    # names, and a lookup per table row would cost a query each.
    from annotation.taxonomy import ABILITIES, CATEGORIES

    return {
        "category": {en: (en, zh) for _code, en, zh in CATEGORIES}
        | {"Uncategorised": ("Uncategorised", "未分类")},
        "ability": {label: (en, zh) for label, _code, en, zh in ABILITIES},
    }


@register.filter
def group_label(value, key: str) -> str:
    """A report group's name in the reader's language: a category (keyed by its English
    name), an ability (keyed by its label in the data) or a difficulty."""
    from annotation.models import Case

    text = "" if value is None else str(value)
    if key == "difficulty" and text in Case.Difficulty.values:
        return str(Case.Difficulty(text).label)
    names = _taxonomy_names().get(key, {}).get(text)
    if names is None:
        return text
    english, chinese = names
    return chinese if (get_language() or "").startswith("zh") and chinese else english


_PROFILES = {
    "heartbench": gettext_lazy("HeartBench (the paper's catastrophic rule)"),
    "heartbench-code": gettext_lazy("HeartBench (the released code's catastrophic rule)"),
}


@register.filter
def profile_label(value) -> str:
    """A scoring profile's name for people; an unknown profile is shown as its code."""
    return str(_PROFILES.get(str(value), value))


# Why a statistic is undefined, as the Django-free statistics modules word it. They cannot
# use the catalog themselves, so the page translates the reasons it knows; any other reason
# (one that quotes numbers) is shown as written.
_REASONS = {
    reason: gettext_lazy(reason)
    for reason in (
        gettext_noop("no units"),
        gettext_noop("no units, so there is no proportion to bound"),
        gettext_noop("no units with both a judge verdict and a human consensus"),
        gettext_noop("no units with both a consensus and a judge verdict"),
        gettext_noop("agreement is undefined: no units"),
        gettext_noop("this rater rated no units"),
        gettext_noop("the human consensus is positive on no unit, so sensitivity is undefined"),
        gettext_noop("the human consensus is negative on no unit, so specificity is undefined"),
        gettext_noop("each unit has a single rating, so there is nothing to compare"),
        gettext_noop("no units, so there is nothing to test"),
        gettext_noop("on none of this rater's units did the other raters reach a majority"),
        gettext_noop(
            "only one category is possible, so chance agreement is 1 and AC1 is undefined"
        ),
        gettext_noop(
            "both raters used one and the same category for every unit, so expected "
            "agreement is 1 and kappa is undefined"
        ),
    )
}


@register.filter
def reason_text(value) -> str:
    text = "" if value is None else str(value)
    return str(_REASONS.get(text, text))
