"""Handing out items: one click gives an expert their next item, safely under concurrency."""

import time
from dataclasses import dataclass

from django.db import OperationalError, connection, transaction
from django.db.models import (
    Case,
    F,
    IntegerField,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation import audit_actions
from annotation.models import Assignment, ReviewItem, ReviewRound, VotesSeen
from annotation.selectors.pool_standing import assignments_in_round, pool_standing, round_size
from annotation.selectors.review_workload import OPEN_WORK, share_of
from annotation.services.votes_seen import ROUND_WIDE, response_votes_read, responses_seen_by
from core.audit.services import audit_record


class AssignmentRefused(Exception):
    pass


class AssignmentBusy(AssignmentRefused):
    """Open items remain, but other experts held every one of them each time we looked."""


def _votes_seen(round_: ReviewRound, expert) -> QuerySet:
    """The records of the expert having read the votes of the round's items otherwise than
    in an item's thread (adjudicating, the consensus, an export): they rate nothing more in
    the round."""
    return VotesSeen.objects.filter(item__round=round_, user=expert.pk, via__in=ROUND_WIDE)


def expert_share(round_: ReviewRound) -> int:
    """Most items one expert takes: the configured cap, else an even share of the work."""
    if round_.max_items_per_expert:
        return round_.max_items_per_expert
    items, experts = round_size(round_id=round_.pk)
    return share_of(round_, items=items, experts=experts)


@dataclass(frozen=True)
class PoolPlace:
    """Where an expert stands in a round's pool, for spreading the pool over the items: the
    round's item count, its pool size and how many pool members have a smaller id."""

    items: int
    experts: int
    position: int

    def first_places(self, raters: int) -> tuple[int, list[int]]:
        """The expert's own first rank in the seeded hand-out order, and the ranks of their
        lane.

        Experts start at consecutive places of the order, one each, so a pool asking at the
        same moment wants different items; every `raters` of them share a lane of `raters`
        items and bring it to its rater count together. Lanes sit side by side at the front
        of the order, never spread over it: items settle in hand-out order, which the
        sequential gate counts in (an item enters its evidence once every item before it is
        settled), so it can decide early."""
        raters, items = max(1, raters), max(1, self.items)
        lane_start = self.position - self.position % raters
        return self.position % items, [(lane_start + k) % items for k in range(raters)]


@dataclass(frozen=True)
class Claimant:
    """What the hand-out order needs to know of the expert asking: read once per request,
    not again on each retry under contention."""

    place: PoolPlace
    specialities: list[str]
    accurate: bool  # on reference items, so they take hard cases first


def _preference(round_: ReviewRound, claimant: Claimant, *, first: bool) -> list:
    """Order of candidate items: the expert's specialities first; hard cases first for
    experts accurate on reference items; items closest to complete (so consensus arrives
    early); on the expert's first claim of the round, their own place and lane (see
    PoolPlace); then the round's seeded hand-out order (never the id order, which follows
    the import system by system)."""
    specialities, accurate, place = claimant.specialities, claimant.accurate, claimant.place
    order = []
    if specialities:
        # Only with specialities: an empty list would make this a constant, which SQL reads
        # as "sort by the first column" (the id), silently dropping every later preference.
        order.append(
            Case(
                When(response__case__scenario__primary__in=specialities, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
        )
    if accurate:
        # Others are not steered away from hard cases: hard cases handed out last would hold
        # back the settled prefix, and the sequential gate with it, until the end of the round.
        order.append(
            Case(
                When(response__case__difficulty="hard", then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
        )
    if not first:
        return [*order, F("assigned_count").desc(), "hand_out_rank", "pk"]
    # A round opening: among items nobody holds yet, each expert's first claim goes to their
    # own place in their lane, so a pool asking at once spreads over different items instead
    # of queueing for one. An item someone already holds still comes first (closest to
    # complete): experts who ask one after the other share it, and consensus arrives early.
    own_start, lane = place.first_places(round_.raters_per_item)
    return [
        *order,
        F("assigned_count").desc(),
        Case(When(hand_out_rank=own_start, then=Value(0)), default=Value(1)),
        Case(When(hand_out_rank__in=lane, then=Value(0)), default=Value(1)),
        "hand_out_rank",
        "pk",
    ]


def assignment_next(*, expert, round_: ReviewRound) -> Assignment | None:
    """The expert's unfinished item in the round, or a new one; None when there is nothing
    left for them. Never gives an item more raters than the round asks for, nor the same
    item twice to one expert, however many experts ask at once; nor anything of a round
    whose votes the expert has read as adjudicator."""
    standing = pool_standing(round_id=round_.pk, expert_id=expert.pk)
    if not standing.in_pool:
        raise AssignmentRefused(_("You are not in this round's expert pool."))
    if standing.seen_votes:
        raise AssignmentRefused(
            _(
                "You have seen other raters' votes in this round (you adjudicated items of "
                "it, or opened its consensus or an export of its votes), so you do not rate "
                "in it."
            )
        )
    if round_.status != ReviewRound.Status.OPEN:
        raise AssignmentRefused(_("This round is not open."))
    from annotation.selectors.review import expert_reference_accuracy

    claimant = Claimant(
        place=PoolPlace(items=standing.items, experts=standing.experts, position=standing.position),
        specialities=standing.specialities,
        accurate=(expert_reference_accuracy(expert=expert) or 0) >= 0.8,
    )
    for attempt in range(CLAIM_ATTEMPTS):
        outcome = _claim_next(
            expert=expert, round_=round_, claimant=claimant, wait=attempt >= SKIP_ATTEMPTS
        )
        if outcome is not _BUSY:
            return outcome
        # Every open item was being taken by someone else at this instant: look again.
        time.sleep(0.01 * (attempt + 1))
    # Contention is not "nothing left": saying so would end the expert's work early.
    raise AssignmentBusy(
        _("Many experts are taking items at this moment. Please ask for the next item again.")
    )


_BUSY = object()
# Skipping items other experts hold spreads experts over items; after a few misses an
# expert queues behind the holder instead (for at most LOCK_WAIT), so a slow transaction
# cannot starve them.
SKIP_ATTEMPTS = 3
CLAIM_ATTEMPTS = 8
LOCK_WAIT = "500ms"
# Candidates sorted for the lock: a round opening's pool asks for different items (see
# PoolPlace), so a few dozen cover everyone asking at once.
SHORTLIST = 64
LOCK_NOT_AVAILABLE = "55P03"


def _claim_next(*, expert, round_: ReviewRound, claimant: Claimant, wait: bool):
    try:
        return _claim_next_locked(expert=expert, round_=round_, claimant=claimant, wait=wait)
    except OperationalError as exc:
        if getattr(exc.__cause__, "sqlstate", None) == LOCK_NOT_AVAILABLE:
            return _BUSY
        raise


def _claim_next_locked(*, expert, round_: ReviewRound, claimant: Claimant, wait: bool):
    with transaction.atomic():
        _lock_place_in_pool(expert, round_)
        statuses = [
            (pk, status)
            for pk, status, _seconds in assignments_in_round(
                expert_id=expert.pk, round_id=round_.pk
            )
        ]
        current = next((pk for pk, status in statuses if status in OPEN_WORK), None)
        if current is not None:
            return Assignment.objects.get(pk=current)
        place = claimant.place
        share = share_of(round_, items=place.items, experts=place.experts)
        open_items = _items_open_to(expert, round_, statuses, share=share)
        if open_items is None:
            return None
        order = _preference(round_, claimant, first=not statuses)
        if not connection.features.has_select_for_update_skip_locked:
            taken = _take_first(open_items.order_by(*order)[:20], expert, round_)
            return taken or (_BUSY if open_items.exists() else None)
        if wait and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL lock_timeout = '{LOCK_WAIT}'")
        # Lock one item only: locking every candidate would hide all of them from the
        # experts asking at the same moment. A lock between the sort and the limit keeps
        # PostgreSQL from sorting only the top of the list, so the lock is taken among the
        # best SHORTLIST candidates, sorted without one; the whole round is looked at only
        # when others hold every one of them.
        shortlist = ReviewItem.objects.filter(
            # Looked up by id only, so no estimate of the round's size can turn the lookup
            # into a scan; the rater count is checked again on the locked row.
            pk__in=Subquery(open_items.order_by(*order).values("pk")[:SHORTLIST]),
            assigned_count__lt=round_.raters_per_item,
        )
        for candidates in (shortlist, open_items):
            locked = candidates.order_by(*order).select_for_update(
                skip_locked=not wait, of=("self",)
            )
            taken = _take_first(locked[:1], expert, round_)
            if taken is not None:
                return taken
        # Others are taking every item at this instant, or nothing is left for the expert.
        return _BUSY if open_items.exists() else None


def _lock_place_in_pool(expert, round_: ReviewRound) -> None:
    """One claim at a time for an expert in a round, however many of their tabs ask at once:
    their row of the round's pool is locked before their assignments are read, so each claim
    sees what the one before it took. The one open item per expert and the round's cap then
    hold in the database, not only in one process's reading of it."""
    list(
        ReviewRound.experts.through.objects.select_for_update()
        .filter(reviewround_id=round_.pk, user_id=expert.pk)
        .values_list("pk", flat=True)
    )


def _take_first(candidates, expert, round_: ReviewRound) -> Assignment | None:
    """Hand out the first candidate still short of raters (None: none could be taken)."""
    for item in candidates:
        # The guard in the WHERE clause is what keeps an item at its rater count.
        taken = ReviewItem.objects.filter(
            pk=item.pk, assigned_count__lt=round_.raters_per_item
        ).update(assigned_count=F("assigned_count") + 1)
        if taken:
            return Assignment.objects.create(item=item, expert=expert)
    return None


def _items_open_to(
    expert, round_: ReviewRound, statuses: list, *, share: int | None = None
) -> QuerySet | None:
    """Items the expert could be handed next (None: none, their capped share is full).
    `statuses` are (pk, status) of all their assignments in the round. An item they skipped
    keeps its assignment row, so it is never handed to them again; it does not use up their
    share."""
    open_items = (
        ReviewItem.objects.filter(round=round_, assigned_count__lt=round_.raters_per_item)
        .exclude(assignments__expert=expert)
        # A response whose votes they have read, in this round or an earlier one.
        .exclude(response_id__in=responses_seen_by(expert.pk))
    )
    share = expert_share(round_) if share is None else share
    taken = sum(1 for _pk, status in statuses if status != Assignment.Status.SKIPPED)
    if taken >= share:
        if round_.max_items_per_expert:
            return None  # a configured cap is firm
        # The even share is soft: past it, take only items nobody else could finish.
        open_items = open_items.filter(pk__in=_stranded_items(round_, expert, share))
    return open_items


def work_left_for(*, expert, round_: ReviewRound) -> bool:
    """Whether asking for the next item would give the expert something (an item they hold
    or a new one): when it would not, their pages say they are done rather than offer one."""
    if round_.status != ReviewRound.Status.OPEN or _votes_seen(round_, expert).exists():
        return False
    statuses = list(
        Assignment.objects.filter(expert=expert, item__round=round_).values_list("pk", "status")
    )
    if any(status in OPEN_WORK for _pk, status in statuses):
        return True
    open_items = _items_open_to(expert, round_, statuses)
    return open_items is not None and open_items.exists()


def _stranded_items(round_: ReviewRound, expert, share: int) -> list[int]:
    """Open items that the other experts of the pool, within their share, cannot bring to
    the round's rater count."""
    per_expert: dict[int, int] = {}
    raters: dict[int, set[int]] = {}
    for item_id, expert_id, status in Assignment.objects.filter(item__round=round_).values_list(
        "item_id", "expert_id", "status"
    ):
        if status != Assignment.Status.SKIPPED:
            per_expert[expert_id] = per_expert.get(expert_id, 0) + 1
        raters.setdefault(item_id, set()).add(expert_id)
    unable = set(
        VotesSeen.objects.filter(item__round=round_, via__in=ROUND_WIDE).values_list(
            "user_id", flat=True
        )
    )
    pool = [
        pk
        for pk in round_.experts.values_list("pk", flat=True)
        if pk != expert.pk and pk not in unable
    ]
    stranded = []
    for item_id, assigned in ReviewItem.objects.filter(
        round=round_, assigned_count__lt=round_.raters_per_item
    ).values_list("pk", "assigned_count"):
        able = sum(
            1
            for other in pool
            if per_expert.get(other, 0) < share and other not in raters.get(item_id, set())
        )
        if able < round_.raters_per_item - assigned:
            stranded.append(item_id)
    return stranded


def assignment_reassign(*, assignment: Assignment, to_expert, user=None) -> Assignment:
    """Move an item nobody has started to another expert of the round."""
    with transaction.atomic():
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if locked.status != Assignment.Status.ASSIGNED or locked.started is not None:
            raise AssignmentRefused(_("Only an item nobody has started can be reassigned."))
        round_ = locked.item.round
        if not round_.experts.filter(pk=to_expert.pk).exists():
            raise AssignmentRefused(_("That expert is not in this round's pool."))
        if Assignment.objects.filter(item=locked.item, expert=to_expert).exists():
            raise AssignmentRefused(_("That expert already has this item."))
        if _votes_seen(round_, to_expert).exists():
            raise AssignmentRefused(
                _("That expert has adjudicated items of this round, so they do not rate in it.")
            )
        if response_votes_read(response_id=locked.item.response_id, user_id=to_expert.pk):
            raise AssignmentRefused(
                _(
                    "That expert has read other raters' votes on this response, so they do "
                    "not rate it."
                )
            )
        from_expert = locked.expert.get_username()
        locked.expert = to_expert
        # The new expert's active time counts from now, not from the first hand-out.
        locked.active_until = timezone.now()
        locked.save(update_fields=["expert", "active_until"])
        audit_record(
            actor=user,
            action=audit_actions.ASSIGNMENT_MOVED,
            benchmark=round_.benchmark,
            details={
                "round": round_.name,
                "item": locked.item.code,
                "from": from_expert,
                "to": to_expert.get_username(),
            },
        )
    return locked
