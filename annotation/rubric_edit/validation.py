"""What a rubric must satisfy before it is published. Messages are for people: they say
what is wrong and how to fix it, attached to the row they concern."""

from collections.abc import Collection
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from annotation.rubric_edit.clarify import has_placeholder
from annotation.rubric_edit.rows import RubricRow

WEIGHT_MIN, WEIGHT_MAX = -10, 10


@dataclass
class RubricProblems:
    rows: dict[str, list[str]] = field(default_factory=dict)  # row key -> messages
    rubric: list[str] = field(default_factory=list)
    # True when the only thing in the way is the missing confirmation of several
    # catastrophic criteria.
    needs_catastrophic_confirmation: bool = False
    # That confirmation's message (also in `rubric`): ticked on the publish form, so it does
    # not block the Publish button.
    confirmation: str = ""

    def add(self, key: str, message: str) -> None:
        self.rows.setdefault(key, []).append(message)

    def __bool__(self) -> bool:
        return bool(self.rows or self.rubric)

    def as_dict(self) -> dict:
        return {"rows": self.rows, "rubric": self.rubric}


def validate_rows(
    rows: list[RubricRow],
    *,
    abilities: Collection[str],
    catastrophic_abilities: Collection[str],
    confirm_multiple_catastrophic: bool = False,
) -> RubricProblems:
    problems = RubricProblems()
    first_with_text: dict[str, int] = {}
    for position, row in enumerate(rows, start=1):
        text = row.text.strip()
        if not text:
            problems.add(row.key, _("Write the criterion text."))
        else:
            normalised = " ".join(text.split()).casefold()
            if normalised in first_with_text:
                problems.add(
                    row.key,
                    _("Same text as criterion %(n)d; each criterion must be distinct.")
                    % {"n": first_with_text[normalised]},
                )
            else:
                first_with_text[normalised] = position
            if has_placeholder(text):
                problems.add(
                    row.key,
                    _("Replace the clarification placeholder with your own words."),
                )
        if not row.ability:
            problems.add(row.key, _("Pick an ability."))
        elif row.ability not in abilities:
            problems.add(
                row.key,
                _("“%(label)s” is not an ability of the taxonomy.") % {"label": row.ability},
            )
        _check_weight(row, row.ability in catastrophic_abilities, problems)

    if not rows:
        problems.rubric.append(_("A rubric needs at least one criterion."))
    elif not any(isinstance(r.weight, int) and r.weight > 0 for r in rows):
        problems.rubric.append(_("A rubric needs at least one criterion with a positive weight."))
    catastrophic = sum(1 for r in rows if r.ability in catastrophic_abilities)
    if catastrophic > 1 and not confirm_multiple_catastrophic:
        problems.confirmation = _(
            "This rubric has %(n)d catastrophic criteria. Tick “I mean to have more than "
            "one catastrophic criterion” to publish it."
        ) % {"n": catastrophic}
        problems.rubric.append(problems.confirmation)
        problems.needs_catastrophic_confirmation = True
    return problems


def _check_weight(row: RubricRow, catastrophic: bool, problems: RubricProblems) -> None:
    weight = row.weight
    if weight is None:
        if not catastrophic:
            problems.add(
                row.key,
                _("Give a weight from -10 to 10 (not 0), or choose the catastrophic ability."),
            )
        return
    if isinstance(weight, bool) or not isinstance(weight, int):
        problems.add(row.key, _("The weight must be a whole number from -10 to 10."))
    elif not WEIGHT_MIN <= weight <= WEIGHT_MAX:
        problems.add(row.key, _("The weight %(w)d is out of range: use -10 to 10.") % {"w": weight})
    elif weight == 0:
        problems.add(row.key, _("A weight of 0 counts for nothing: use -10 to -1 or 1 to 10."))
