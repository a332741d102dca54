"""Rubric authoring: every change becomes a new immutable version, attributed and noted.

Publishing is refused when someone else published since the editor's base version; the
draft is kept and can be rebased onto the newer version, so nothing either editor wrote
is lost.
"""

from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from annotation import audit_actions
from annotation.importing.questions import CriterionRow, rubric_hash
from annotation.models import Ability, Case, Criterion, RubricComment, RubricDraft, RubricVersion
from annotation.rubric_edit.clarify import with_clarification
from annotation.rubric_edit.diff import DiffEntry, diff_rows
from annotation.rubric_edit.evidence import note_with_evidence
from annotation.rubric_edit.merge import rebase
from annotation.rubric_edit.rows import RubricRow
from annotation.rubric_edit.validation import RubricProblems, validate_rows
from annotation.selectors.rubric_rows import rows_of_version, taxonomy_labels
from annotation.selectors.rubrics import current_rubric_version
from annotation.services.review_votes import NOTE_MAX_LENGTH
from core.audit import AuditAction
from core.audit.services import audit_record

# A comment on a rubric is a remark, limited as a rater's note is.
COMMENT_MAX_LENGTH = NOTE_MAX_LENGTH

NOTE_MAX = 500


class RubricInvalid(Exception):
    def __init__(self, problems: RubricProblems) -> None:
        super().__init__(
            "; ".join(problems.rubric + [m for ms in problems.rows.values() for m in ms])
        )
        self.problems = problems


@dataclass
class RubricConflict(Exception):
    """Someone published `latest` after the version the editor started from."""

    base: RubricVersion | None
    latest: RubricVersion
    changes: list[DiffEntry]

    def __str__(self) -> str:
        return _(
            "Version %(latest)d was published by %(author)s after you started from version "
            "%(base)d. Your draft is kept: review their changes and rebase onto version "
            "%(latest)d."
        ) % {
            "latest": self.latest.number,
            "author": self.latest.author or _("an import"),
            "base": self.base.number if self.base else 0,
        }


def _validated(rows: list[RubricRow], note: str, confirm: bool) -> None:
    labels, catastrophic = taxonomy_labels()
    problems = validate_rows(
        rows,
        abilities=labels,
        catastrophic_abilities=catastrophic,
        confirm_multiple_catastrophic=confirm,
    )
    if not note.strip():
        problems.rubric.insert(0, _("Write a short change note saying what you changed and why."))
    elif len(note) > NOTE_MAX:
        problems.rubric.insert(0, _("The change note is too long (at most 500 characters)."))
    if problems:
        raise RubricInvalid(problems)


def rubric_version_create(
    *,
    case: Case,
    rows: list[RubricRow],
    parent_number: int,
    author,
    note: str,
    source: RubricVersion.Source = RubricVersion.Source.EDITOR,
    confirm_multiple_catastrophic: bool = False,
    audit_action: AuditAction = audit_actions.RUBRIC_PUBLISHED,
    audit_details: dict | None = None,
    draft_to_close: RubricDraft | None = None,
) -> RubricVersion:
    """Publish `rows` as the next version of the case's rubric.

    `parent_number` is the version the author edited (0 for a case without a rubric). If a
    newer version exists, RubricConflict is raised and nothing is written.
    """
    _validated(rows, note, confirm_multiple_catastrophic)
    with transaction.atomic():
        # Two editors publishing at once queue here; the loser sees the winner's version.
        Case.objects.select_for_update().filter(pk=case.pk).first()
        latest = current_rubric_version(case=case)
        latest_number = latest.number if latest else 0
        if latest_number == parent_number:
            version = _version_write(
                case=case, rows=rows, latest=latest, author=author, note=note, source=source
            )
            audit_record(
                actor=author,
                action=audit_action,
                case=case,
                version=version,
                details={"number": version.number, "note": version.note, **(audit_details or {})},
            )
            if draft_to_close is not None:
                draft_to_close.delete()
            return version
    # Recorded outside the refused transaction, so the audit log keeps the attempt.
    base = case.rubric_versions.filter(number=parent_number).first()
    audit_record(
        actor=author,
        action=audit_actions.RUBRIC_CONFLICT,
        case=case,
        version=latest,
        details={"parent": parent_number, "latest": latest_number},
    )
    raise RubricConflict(
        base=base,
        latest=latest,
        changes=diff_rows(rows_of_version(base), rows_of_version(latest)),
    )


def _version_write(
    *, case: Case, rows: list[RubricRow], latest: RubricVersion | None, author, note: str, source
) -> RubricVersion:
    if latest is not None and rows == rows_of_version(latest):
        problems = RubricProblems()
        problems.rubric.append(
            _("Nothing to publish: this is the same as version %(n)d.") % {"n": latest.number}
        )
        raise RubricInvalid(problems)
    abilities = {a.label: a for a in Ability.objects.all()}
    version = RubricVersion.objects.create(
        case=case,
        number=(latest.number if latest else 0) + 1,
        parent=latest,
        author=author if getattr(author, "is_authenticated", False) else None,
        note=note.strip(),
        source=source,
        content_hash=rubric_hash([CriterionRow(r.ability, r.weight, r.text.strip()) for r in rows]),
    )
    Criterion.objects.bulk_create(
        Criterion(
            rubric_version=version,
            position=position,
            key=row.key,
            ability=abilities[row.ability],
            weight=row.weight,
            text=row.text.strip(),
            is_catastrophic=abilities[row.ability].is_catastrophic,
        )
        for position, row in enumerate(rows, start=1)
    )
    return version


def rubric_draft_save(*, case: Case, author, rows: list[RubricRow]) -> RubricDraft:
    """Autosave: store the editor's rows as they are, valid or not."""
    with transaction.atomic():
        draft = RubricDraft.objects.select_for_update().filter(case=case, author=author).first()
        if draft is None:
            latest = current_rubric_version(case=case)
            draft = RubricDraft.objects.create(
                case=case,
                author=author,
                base_version=latest,
                rows=[row.as_dict() for row in rows],
            )
            audit_record(
                actor=author,
                action=audit_actions.RUBRIC_DRAFT_CREATED,
                case=case,
                version=latest,
                details={"base": latest.number if latest else 0},
            )
            return draft
        draft.rows = [row.as_dict() for row in rows]
        draft.save(update_fields=["rows", "updated"])
        return draft


def draft_rows(draft: RubricDraft) -> list[RubricRow]:
    return [RubricRow.from_dict(row) for row in draft.rows]


def rubric_draft_clarify(*, case: Case, author, key: str) -> RubricDraft:
    """The author's draft of the case (their own one if they have it, else one from the
    newest version), with a clarification placeholder after the criterion `key`. Nothing
    is published. Raises KeyError when the draft has no criterion `key`."""
    draft = RubricDraft.objects.filter(case=case, author=author).first()
    if draft is not None:
        rows = draft_rows(draft)
    else:
        rows = rows_of_version(current_rubric_version(case=case))
    return rubric_draft_save(case=case, author=author, rows=with_clarification(rows, key))


def rubric_draft_publish(
    *,
    draft: RubricDraft,
    note: str,
    confirm_multiple_catastrophic: bool = False,
    evidence: str = "",
) -> RubricVersion:
    """Publish the draft as a new version; `evidence` (what the revision answers, such as
    rubric health figures) is recorded in the change note after the author's words."""
    return rubric_version_create(
        case=draft.case,
        rows=draft_rows(draft),
        parent_number=draft.base_version.number,
        author=draft.author,
        note=note_with_evidence(note, evidence),
        confirm_multiple_catastrophic=confirm_multiple_catastrophic,
        draft_to_close=draft,
    )


def rubric_draft_rebase(*, draft: RubricDraft) -> RubricDraft:
    """Move the draft onto the newest version, keeping the author's changes."""
    with transaction.atomic():
        latest = current_rubric_version(case=draft.case)
        if latest is None or latest.pk == draft.base_version_id:
            return draft
        result = rebase(
            rows_of_version(draft.base_version), draft_rows(draft), rows_of_version(latest)
        )
        old_base = draft.base_version.number
        draft.base_version = latest
        draft.rows = [row.as_dict() for row in result.rows]
        draft.conflicts = {
            key: (theirs.as_dict() if theirs else None) for key, theirs in result.conflicts.items()
        }
        draft.save(update_fields=["base_version", "rows", "conflicts", "updated"])
        audit_record(
            actor=draft.author,
            action=audit_actions.RUBRIC_REBASED,
            case=draft.case,
            version=latest,
            details={"from": old_base, "to": latest.number, "conflicts": len(result.conflicts)},
        )
    return draft


def rubric_draft_discard(*, draft: RubricDraft) -> None:
    draft.delete()


def rubric_version_restore(*, case: Case, number: int, author, note: str = "") -> RubricVersion:
    """A new version equal to version `number`; history is never rewritten."""
    old = case.rubric_versions.get(number=number)
    latest = current_rubric_version(case=case)
    return rubric_version_create(
        case=case,
        rows=rows_of_version(old),
        parent_number=latest.number,
        author=author,
        note=note.strip() or _("Restored version %(n)d") % {"n": number},
        source=RubricVersion.Source.RESTORE,
        confirm_multiple_catastrophic=True,
        audit_action=audit_actions.RUBRIC_RESTORED,
        audit_details={"restored": number},
    )


def rubric_comment_add(
    *, case: Case, author, text: str, version: RubricVersion | None = None
) -> RubricComment:
    text = text.strip()
    if not text:
        raise ValueError(_("Write a comment first."))
    if len(text) > COMMENT_MAX_LENGTH:
        raise ValueError(
            _("The comment is too long: %(length)d characters, at most %(limit)d.")
            % {"length": len(text), "limit": COMMENT_MAX_LENGTH}
        )
    return RubricComment.objects.create(
        case=case, author=author, text=text, version=version or current_rubric_version(case=case)
    )
