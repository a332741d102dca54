"""An expert's work on one item: autosave, submit (and revise), flag; and adjudication."""

from dataclasses import dataclass

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import (
    Adjudication,
    Assignment,
    Criterion,
    ExpertProfile,
    Flag,
    ReferenceAnswer,
    ReviewItem,
    ReviewRound,
    Vote,
)

MAX_ACTIVE_STEP = 120  # seconds one autosave may add: a forgotten open tab is not work


class VoteRefused(Exception):
    pass


@dataclass(frozen=True)
class VoteInput:
    criterion_id: int
    hit: bool | None
    note: str = ""


def _criteria_ids(assignment: Assignment) -> list[int]:
    return list(
        Criterion.objects.filter(rubric_version_id=assignment.item.rubric_version_id)
        .order_by("position")
        .values_list("pk", flat=True)
    )


def _writable(assignment: Assignment) -> None:
    if assignment.item.round.status == ReviewRound.Status.CLOSED:
        raise VoteRefused(_("This round is closed; its votes can no longer change."))


def assignment_autosave(
    *, assignment: Assignment, votes: list[VoteInput], comment: str, active_seconds: int
) -> Assignment:
    """Keep partial work (a reload or a lost connection loses nothing) and count active time."""
    _writable(assignment)
    step = max(0, min(int(active_seconds), MAX_ACTIVE_STEP))
    draft = {
        "votes": {str(v.criterion_id): {"hit": v.hit, "note": v.note} for v in votes},
        "comment": comment,
    }
    now = timezone.now()
    Assignment.objects.filter(pk=assignment.pk).update(
        draft=draft,
        active_seconds=F("active_seconds") + step,
        started=assignment.started or now,
        status=Assignment.Status.IN_PROGRESS
        if assignment.status == Assignment.Status.ASSIGNED
        else assignment.status,
    )
    assignment.refresh_from_db()
    return assignment


def assignment_submit(
    *,
    assignment: Assignment,
    votes: list[VoteInput],
    comment: str,
    active_seconds: int,
    base_revision: int,
) -> tuple[Assignment, bool]:
    """Record one complete set of votes as a new revision. `base_revision` is the revision
    the page was loaded with: a second click on the same page finds the revision moved on
    and records nothing (returns False)."""
    _writable(assignment)
    expected = _criteria_ids(assignment)
    by_criterion = {v.criterion_id: v for v in votes}
    missing = [
        i
        for i, cid in enumerate(expected, 1)
        if by_criterion.get(cid) is None or by_criterion[cid].hit is None
    ]
    if missing:
        raise VoteRefused(
            _("Answer every criterion before submitting (missing: %(list)s).")
            % {"list": ", ".join(str(n) for n in missing)}
        )
    if set(by_criterion) - set(expected):
        raise VoteRefused(_("Some answers are for criteria this item does not have."))
    with transaction.atomic():
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if locked.revision != base_revision:
            return locked, False
        revision = locked.revision + 1
        Vote.objects.bulk_create(
            Vote(
                assignment=locked,
                criterion_id=cid,
                revision=revision,
                hit=bool(by_criterion[cid].hit),
                note=by_criterion[cid].note.strip(),
            )
            for cid in expected
        )
        now = timezone.now()
        locked.revision = revision
        locked.status = Assignment.Status.SUBMITTED
        locked.overall_comment = comment.strip()
        locked.submitted = now
        locked.started = locked.started or now
        locked.active_seconds += max(0, min(int(active_seconds), MAX_ACTIVE_STEP))
        locked.draft = {}
        locked.save()
    # The caller's object already has its item and round loaded; the locked copy does not.
    if assignment.item.round.is_calibration:
        _update_calibration(locked, assignment.item.round)
    return locked, True


def flag_raise(*, assignment: Assignment, reason: str, note: str = "") -> Flag:
    if reason not in Flag.Reason.values:
        raise VoteRefused(_("Choose why you flag this item."))
    return Flag.objects.create(assignment=assignment, reason=reason, note=note.strip())


def adjudication_record(
    *,
    item: ReviewItem,
    by,
    note: str,
    criterion: Criterion | None = None,
    decision: bool | None = None,
) -> Adjudication:
    """A senior expert's decision, kept beside the raw votes (which never change)."""
    adjudication, _ = Adjudication.objects.update_or_create(
        item=item, criterion=criterion, defaults={"decision": decision, "note": note, "by": by}
    )
    Flag.objects.filter(assignment__item=item).update(resolved=True)
    return adjudication


def _update_calibration(assignment: Assignment, round_: ReviewRound) -> None:
    """After the last calibration item, release the expert when their agreement with the
    reference answers reaches the threshold."""
    from annotation.selectors.review import calibration_result

    result = calibration_result(expert=assignment.expert, round_=round_)
    if result.complete and result.passed:
        ExpertProfile.objects.update_or_create(
            user=assignment.expert, defaults={"calibrated": True}
        )


def reference_answers_set(*, item: ReviewItem, answers: dict[int, tuple[bool, str]]) -> None:
    """Mark `item` as a reference item with a known answer (and why) per criterion."""
    with transaction.atomic():
        ReviewItem.objects.filter(pk=item.pk).update(is_reference=True)
        for criterion_id, (hit, explanation) in answers.items():
            ReferenceAnswer.objects.update_or_create(
                item=item,
                criterion_id=criterion_id,
                defaults={"hit": hit, "explanation": explanation},
            )
