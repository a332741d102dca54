"""A clarification of one criterion, drafted from evidence that the judge reads it
otherwise than the experts do: the criterion's text, then a placeholder the coordinator
replaces with their own words. The placeholder can never be published as it stands."""

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.rubric_edit.rows import RubricRow

_LABEL = gettext_noop("Clarification:")
_PLACEHOLDER = gettext_noop("[say here what counts as met and what does not]")


def clarification_placeholder() -> str:
    return f"{_(_LABEL)} {_(_PLACEHOLDER)}"


def has_placeholder(text: str) -> bool:
    """Whether the text still holds the placeholder, in any of the interface's languages
    (the draft may have been made in another language than the one publishing it)."""
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            if _(_PLACEHOLDER) in text:
                return True
    return False


def with_clarification(rows: list[RubricRow], key: str) -> list[RubricRow]:
    """The rows with the placeholder after the text of the criterion `key`, unless that
    text already holds one (a second click adds nothing). Raises KeyError for a key that is
    not among the rows."""
    if not any(row.key == key for row in rows):
        raise KeyError(key)
    return [
        row
        if row.key != key or has_placeholder(row.text)
        else RubricRow(
            key=row.key,
            ability=row.ability,
            weight=row.weight,
            text=f"{row.text.rstrip()} {clarification_placeholder()}",
        )
        for row in rows
    ]
