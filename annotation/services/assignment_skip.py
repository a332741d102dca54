"""Giving an item back: an expert skips an item they cannot judge, with their reason."""

from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext as _

from annotation.models import Assignment, ReviewItem, ReviewRound
from annotation.services.review_assignment import OPEN_WORK, AssignmentRefused

SKIP_NOTE_MAX_LENGTH = 2000


def assignment_skip(*, assignment: Assignment, reason: str, note: str = "") -> Assignment:
    """Give an unsubmitted item back to the pool, with the expert's reason. The row stays
    (status "skipped"), so the coordinator sees how often and why items are skipped, and
    the item is never handed to the same expert again."""
    if reason not in Assignment.SkipReason.values:
        raise AssignmentRefused(_("Choose why you skip this item."))
    if len(note) > SKIP_NOTE_MAX_LENGTH:
        raise AssignmentRefused(
            _("The note is too long: %(length)d characters, at most %(limit)d.")
            % {"length": len(note), "limit": SKIP_NOTE_MAX_LENGTH}
        )
    with transaction.atomic():
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if locked.status not in OPEN_WORK:
            raise AssignmentRefused(
                _("Only an item you have not submitted can be skipped.")
                if locked.status == Assignment.Status.SUBMITTED
                else _("You have already skipped this item.")
            )
        if (
            ReviewRound.objects.filter(pk=locked.item.round_id)
            .values_list("status", flat=True)
            .get()
            != ReviewRound.Status.OPEN
        ):
            raise AssignmentRefused(_("This round is not open."))
        ReviewItem.objects.filter(pk=locked.item_id, assigned_count__gt=0).update(
            assigned_count=F("assigned_count") - 1
        )
        locked.status = Assignment.Status.SKIPPED
        locked.skip_reason = reason
        locked.skip_note = note.strip()
        locked.draft = {}
        locked.save(update_fields=["status", "skip_reason", "skip_note", "draft"])
    return locked
