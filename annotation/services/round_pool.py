"""Who rates in a round: adding experts to a round's pool, removing them, and giving back
the items an expert was handed but never opened (when they leave or are deactivated)."""

from collections import Counter

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils.translation import gettext as _

from accounts.roles import EXPERT, SENIOR_EXPERT
from annotation import audit_actions
from annotation.models import Assignment, ReviewItem, ReviewRound
from annotation.services.rater_pseudonyms import rater_pseudonyms_assign
from core.audit.services import audit_record


class PoolRefused(Exception):
    pass


def unstarted_assignments(*, expert=None, round_: ReviewRound | None = None):
    """Items handed out that were never opened (the expert's, or everyone's): nothing of
    anyone's is lost if they go back to the pool."""
    found = Assignment.objects.filter(status=Assignment.Status.ASSIGNED, started__isnull=True)
    if expert is not None:
        found = found.filter(expert=expert)
    return found.filter(item__round=round_) if round_ is not None else found


def assignments_release(*, expert=None, round_: ReviewRound | None = None) -> int:
    """Give unopened items (the expert's, or every expert's of the round) back to their
    rounds: each item is handed out to someone else. Returns how many were released."""
    with transaction.atomic():
        # Locked, and checked again: an item opened meanwhile stays with its expert.
        unstarted = unstarted_assignments(expert=expert, round_=round_).select_for_update()
        per_item = Counter(unstarted.values_list("item_id", flat=True))
        for item_id, count in per_item.items():
            ReviewItem.objects.filter(pk=item_id).update(
                assigned_count=Greatest(F("assigned_count") - count, 0)
            )
        unstarted.delete()
    return sum(per_item.values())


def pool_add(*, round_: ReviewRound, expert, actor) -> None:
    if round_.status == ReviewRound.Status.CLOSED:
        raise PoolRefused(_("Reopen the round before changing its pool."))
    if not expert.is_active:
        raise PoolRefused(_("%(name)s's account is not active.") % {"name": expert.username})
    if not expert.groups.filter(name__in=[EXPERT, SENIOR_EXPERT]).exists():
        raise PoolRefused(_("%(name)s does not annotate.") % {"name": expert.username})
    if round_.experts.filter(pk=expert.pk).exists():
        raise PoolRefused(_("%(name)s is already in the pool.") % {"name": expert.username})
    with transaction.atomic():
        round_.experts.add(expert)
        rater_pseudonyms_assign(benchmark_id=round_.benchmark_id, user_ids=[expert.pk])
        audit_record(
            actor=actor,
            action=audit_actions.POOL_EXPERT_ADDED,
            benchmark=round_.benchmark,
            details={"round": round_.name, "user": expert.username},
        )


def pool_remove(*, round_: ReviewRound, expert, actor) -> int:
    """Take the expert out of the pool, releasing their unopened items; refused once they
    have submitted or started work in the round (it stays theirs). Returns the released
    count."""
    if round_.status == ReviewRound.Status.CLOSED:
        raise PoolRefused(_("Reopen the round before changing its pool."))
    if not round_.experts.filter(pk=expert.pk).exists():
        raise PoolRefused(_("%(name)s is not in the pool.") % {"name": expert.username})
    worked = Assignment.objects.filter(item__round=round_, expert=expert).exclude(
        status=Assignment.Status.ASSIGNED, started__isnull=True
    )
    if worked.exists():
        raise PoolRefused(
            _("%(name)s has started or submitted work in this round and stays in the pool.")
            % {"name": expert.username}
        )
    with transaction.atomic():
        released = assignments_release(expert=expert, round_=round_)
        round_.experts.remove(expert)
        audit_record(
            actor=actor,
            action=audit_actions.POOL_EXPERT_REMOVED,
            benchmark=round_.benchmark,
            details={"round": round_.name, "user": expert.username, "released": released},
        )
    return released
