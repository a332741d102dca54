from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from annotation.models import Ability, Case, RubricComment, RubricDraft, RubricVersion
from annotation.rubric_edit.rows import RubricRow
from annotation.rubric_edit.validation import RubricProblems, validate_rows
from annotation.selectors.rubric_rows import rows_of_version
from annotation.selectors.rubrics import current_rubric_version


@dataclass
class EditorRow:
    position: int
    row: RubricRow
    errors: list[str]
    conflict: dict | None
    has_conflict: bool


@dataclass
class EditorState:
    case: Case
    latest: RubricVersion | None
    base: RubricVersion | None
    draft: RubricDraft | None
    rows: list[EditorRow]
    problems: RubricProblems
    abilities: list[Ability]
    catastrophic_labels: set[str]
    comments: list[RubricComment] = field(default_factory=list)

    @property
    def publish_blocker(self) -> str:
        """What stands in the way of publishing, every bad row named with its first
        problem, or "" (the confirmation of several catastrophic criteria is ticked at
        publish time)."""
        rows = [
            _("Criterion %(n)d: %(problem)s") % {"n": row.position, "problem": row.errors[0]}
            for row in self.rows
            if row.errors
        ]
        if rows:
            return " ".join(rows)
        blocking = [p for p in self.problems.rubric if p != self.problems.confirmation]
        return blocking[0] if blocking else ""

    @property
    def outdated(self) -> bool:
        return bool(self.latest and self.base and self.latest.pk != self.base.pk)


def rubric_editor_state(
    *, case: Case, user, rows: list[RubricRow] | None = None, confirm: bool = False
) -> EditorState:
    """What the editor shows: the user's draft if they have one, else the current version.

    Runs a fixed number of queries whatever the number of criteria, versions or comments.
    """
    latest = current_rubric_version(case=case)
    draft = (
        RubricDraft.objects.filter(case=case, author=user).select_related("base_version").first()
        if user.is_authenticated
        else None
    )
    base = draft.base_version if draft else latest
    if rows is None:
        rows = [RubricRow.from_dict(r) for r in draft.rows] if draft else rows_of_version(latest)
    abilities = list(Ability.objects.select_related("category"))
    labels = {a.label for a in abilities}
    catastrophic = {a.label for a in abilities if a.is_catastrophic}
    problems = validate_rows(
        rows,
        abilities=labels,
        catastrophic_abilities=catastrophic,
        confirm_multiple_catastrophic=confirm,
    )
    conflicts = draft.conflicts if draft else {}
    comments = list(RubricComment.objects.filter(case=case).select_related("author", "version"))
    return EditorState(
        case=case,
        latest=latest,
        base=base,
        draft=draft,
        rows=[
            EditorRow(
                position=i,
                row=row,
                errors=problems.rows.get(row.key, []),
                conflict=conflicts.get(row.key),
                has_conflict=row.key in conflicts,
            )
            for i, row in enumerate(rows, start=1)
        ],
        problems=problems,
        abilities=abilities,
        catastrophic_labels=catastrophic,
        comments=comments,
    )
