"""An expert's work on one item: autosave, submit (and revise), flag."""

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation import audit_actions
from annotation.models import (
    Assignment,
    Criterion,
    ExpertProfile,
    Flag,
    ReferenceAnswer,
    ReviewItem,
    ReviewRound,
    Vote,
)
from annotation.services.votes_seen import response_votes_read
from annotation.signals import round_ratings_changed_on_commit
from core.audit.services import audit_record

MAX_ACTIVE_STEP = 120  # seconds one autosave may add: a forgotten open tab is not work
# The same limits on every path (pages and API): notes are reasoning, not documents.
NOTE_MAX_LENGTH = 5000
COMMENT_MAX_LENGTH = 10000


class VoteRefused(Exception):
    pass


class VoteInvalid(VoteRefused):
    """The input itself is wrong (e.g. a note too long): sending it again changes nothing."""


class AlreadySubmitted(VoteRefused):
    """An autosave reached an item already submitted (the page's last save arriving after
    the submit, or another tab): nothing changed."""


@dataclass(frozen=True)
class VoteInput:
    criterion_id: int
    hit: bool | None
    note: str = ""


def criteria_ids(assignment: Assignment) -> list[int]:
    """Ids of the item's criteria in page order; read once per request (kept on the
    assignment), since the view reads the posted answers with them and the service checks
    them against the same list."""
    if not hasattr(assignment, "_criteria_ids"):
        assignment._criteria_ids = list(
            Criterion.objects.filter(rubric_version_id=assignment.item.rubric_version_id)
            .order_by("position")
            .values_list("pk", flat=True)
        )
    return assignment._criteria_ids


def _writable(assignment: Assignment) -> None:
    if assignment.item.round.status == ReviewRound.Status.CLOSED:
        raise VoteRefused(_("This round is closed; its votes can no longer change."))
    _not_skipped(assignment)


def _not_skipped(assignment: Assignment) -> None:
    if assignment.status == Assignment.Status.SKIPPED:
        raise VoteRefused(_("You skipped this item: it went back to the pool."))


def note_too_long(note: str, *, position: int | None = None) -> str:
    """Why `note` is refused, or "" when its length is within NOTE_MAX_LENGTH."""
    if len(note) <= NOTE_MAX_LENGTH:
        return ""
    values = {"length": len(note), "limit": NOTE_MAX_LENGTH, "position": position}
    if position is None:
        return _("The note is too long: %(length)d characters, at most %(limit)d.") % values
    return (
        _(
            "The note on criterion %(position)d is too long: %(length)d characters, "
            "at most %(limit)d."
        )
        % values
    )


def _check_lengths(assignment: Assignment, votes: Sequence[VoteInput], comment: str) -> None:
    if len(comment) > COMMENT_MAX_LENGTH:
        raise VoteInvalid(
            _("The overall comment is too long: %(length)d characters, at most %(limit)d.")
            % {"length": len(comment), "limit": COMMENT_MAX_LENGTH}
        )
    long = next((v for v in votes if len(v.note) > NOTE_MAX_LENGTH), None)
    if long is not None:
        # Named by its position, as the expert sees it; looked up only when refusing.
        ids = criteria_ids(assignment)
        position = ids.index(long.criterion_id) + 1 if long.criterion_id in ids else None
        raise VoteInvalid(note_too_long(long.note, position=position))


def _credit(locked: Assignment, claimed: int, now: dt.datetime) -> int:
    """Credit the active seconds a save claims, and return them: at most MAX_ACTIVE_STEP
    and no more than the clock has run since the time credited so far (the previous save,
    else the hand-out), so saves sent in a burst, or twice, count once. The part of a
    second a save could not count is carried to the next."""
    since = locked.active_until or locked.assigned
    elapsed = max(0.0, (now - since).total_seconds())
    step = max(0, min(int(claimed), MAX_ACTIVE_STEP, int(elapsed)))
    locked.active_seconds += step
    locked.active_until = max(since + dt.timedelta(seconds=step), now - dt.timedelta(seconds=1))
    return step


def assignment_autosave(
    *, assignment: Assignment, votes: list[VoteInput], comment: str, active_seconds: int
) -> Assignment:
    """Keep partial work (a reload or a lost connection loses nothing) and count active time.
    A submitted item is never changed: the check and the write happen under the row's lock,
    so a save that left the page before the submit but arrives after it finds the item
    submitted and is refused (AlreadySubmitted)."""
    _writable(assignment)
    _check_lengths(assignment, votes, comment)
    draft = {
        "votes": {str(v.criterion_id): {"hit": v.hit, "note": v.note} for v in votes},
        "comment": comment,
    }
    with transaction.atomic():
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        _not_skipped(locked)
        if locked.status == Assignment.Status.SUBMITTED:
            raise AlreadySubmitted(
                _(
                    "This item has been submitted; this save changed nothing. To revise it, "
                    "submit the revision."
                )
            )
        now = timezone.now()
        _credit(locked, active_seconds, now)
        locked.draft = draft
        locked.started = locked.started or now
        locked.status = Assignment.Status.IN_PROGRESS
        locked.save(update_fields=["draft", "active_seconds", "active_until", "started", "status"])
    for name in ("draft", "active_seconds", "active_until", "started", "status"):
        setattr(assignment, name, getattr(locked, name))
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
    expected = criteria_ids(assignment)
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
    _check_lengths(assignment, votes, comment)
    with transaction.atomic():
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        _not_skipped(locked)
        if locked.revision != base_revision:
            return locked, False
        if response_votes_read(response_id=assignment.item.response_id, user_id=locked.expert_id):
            raise VoteRefused(
                _(
                    "You have read other raters' votes on this response (in its discussion, "
                    "as adjudicator, or in a consensus or an export), so your votes on it stay "
                    "as they are."
                )
            )
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
        _credit(locked, active_seconds, now)
        locked.draft = {}
        locked.save()
        # Only a settled item (all its raters' work in) can move the round's sequential
        # test: an item enters its evidence once it and every item before it are settled.
        item = assignment.item
        settled = Assignment.objects.filter(item_id=item.pk, status=Assignment.Status.SUBMITTED)
        if settled.count() >= item.round.raters_per_item:
            round_ratings_changed_on_commit(item.round_id)
    # The caller's object already has its item and round loaded; the locked copy does not.
    if assignment.item.round.is_calibration:
        _update_calibration(locked, assignment.item.round)
    return locked, True


def flag_raise(*, assignment: Assignment, reason: str, note: str = "") -> Flag:
    if reason not in Flag.Reason.values:
        raise VoteInvalid(_("Choose why you flag this item."))
    refused = note_too_long(note)
    if refused:
        raise VoteInvalid(refused)
    return Flag.objects.create(assignment=assignment, reason=reason, note=note.strip())


def _update_calibration(assignment: Assignment, round_: ReviewRound) -> None:
    """After the last calibration item, release the expert when their agreement with the
    reference answers reaches the threshold."""
    from annotation.selectors.review import calibration_result

    result = calibration_result(expert=assignment.expert, round_=round_)
    if result.complete and result.passed:
        ExpertProfile.objects.update_or_create(
            user=assignment.expert, defaults={"calibrated": True}
        )


def _answers(item: ReviewItem) -> list[dict]:
    return [
        {"criterion": position, "hit": hit, "explanation": explanation}
        for position, hit, explanation in item.references.order_by(
            "criterion__position"
        ).values_list("criterion__position", "hit", "explanation")
    ]


def reference_answers_set(
    *, item: ReviewItem, answers: dict[int, tuple[bool, str]], user=None
) -> None:
    """Mark `item` as a reference item with a known answer (and why) per criterion. The
    audit event keeps what the item was before (a published board's evidence reads it)."""
    with transaction.atomic():
        locked = ReviewItem.objects.select_for_update().select_related("round").get(pk=item.pk)
        before = _answers(locked)
        ReviewItem.objects.filter(pk=item.pk).update(is_reference=True)
        for criterion_id, (hit, explanation) in answers.items():
            ReferenceAnswer.objects.update_or_create(
                item=item,
                criterion_id=criterion_id,
                defaults={"hit": hit, "explanation": explanation},
            )
        audit_record(
            actor=user,
            action=audit_actions.REFERENCE_SET,
            benchmark=locked.round.benchmark,
            details={
                "round": locked.round.name,
                "item": locked.code,
                "was_reference": locked.is_reference,
                "before": before,
                "answers": _answers(locked),
            },
        )
