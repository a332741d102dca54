"""What a review round still has under way: shown before a coordinator closes it."""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Count, Q

from accounts.roles import EXPERT, SENIOR_EXPERT
from annotation.models import Assignment, ReviewItem, ReviewRound


@dataclass(frozen=True)
class OpenAssignment:
    code: str
    expert: str
    started: object


@dataclass(frozen=True)
class RoundWork:
    started: list[OpenAssignment]  # begun by an expert, not submitted
    unstarted: int  # handed out, never opened
    short_items: int  # items with fewer submitted ratings than the round asks for
    missing_ratings: int  # ratings those items still lack

    @property
    def anything(self) -> bool:
        return bool(self.started or self.unstarted or self.short_items)


def round_work_in_progress(*, round_: ReviewRound) -> RoundWork:
    open_work = Assignment.objects.filter(
        item__round=round_,
        status__in=[Assignment.Status.ASSIGNED, Assignment.Status.IN_PROGRESS],
    )
    started = [
        OpenAssignment(code=a.item.code, expert=a.expert.get_username(), started=a.started)
        for a in open_work.filter(started__isnull=False)
        .select_related("item", "expert")
        .order_by("started", "pk")
    ]
    submitted = ReviewItem.objects.filter(round=round_).annotate(
        done=Count("assignments", filter=Q(assignments__status=Assignment.Status.SUBMITTED))
    )
    short = [
        round_.raters_per_item - done
        for done in submitted.values_list("done", flat=True)
        if done < round_.raters_per_item
    ]
    return RoundWork(
        started=started,
        unstarted=open_work.filter(started__isnull=True).count(),
        short_items=len(short),
        missing_ratings=sum(short),
    )


def pool_candidates(*, round_: ReviewRound) -> list:
    """Active experts who could join the round's pool."""
    return list(
        get_user_model()
        .objects.filter(is_active=True, groups__name__in=[EXPERT, SENIOR_EXPERT])
        .exclude(review_rounds=round_)
        .distinct()
        .order_by("username")
    )


def pool_removable(*, round_: ReviewRound) -> list:
    """Experts of the pool with no started or submitted work in the round."""
    worked = (
        Assignment.objects.filter(item__round=round_)
        .exclude(status=Assignment.Status.ASSIGNED, started__isnull=True)
        .values("expert")
    )
    return list(round_.experts.exclude(pk__in=worked).order_by("username"))
