"""Showing names the application itself writes (role names, the demo benchmark, notes of
imported rubric versions) in the reader's language, where the catalog has a translation.

Names people type stay as they wrote them: only exact catalog entries are replaced.
"""

from django import template
from django.utils.translation import get_language, gettext, gettext_lazy

from leaderboard import reasons
from leaderboard.gate_rule import gate_rule_text

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


@register.filter
def reason_text(value) -> str:
    """Why a number is undefined, in the reader's language (see leaderboard.reasons)."""
    return reasons.reason_text(None if value is None else str(value))


@register.filter
def gate_rule(gate: dict) -> str:
    """The gate's rule in the reader's language (see leaderboard.gate_rule)."""
    return gate_rule_text(gate)
