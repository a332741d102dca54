"""What stopping at the sequential test's decision saves (no Django): the ratings the
round planned beyond the ones the decision needed, and the expert time they would have
taken at the experts' median pace. A rating is one expert's verdicts on one item, as in
the round's progress and the planner. Nothing here estimates what the unrated items would
have shown."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from leaderboard.stats.reasons import NO_ITEM_TIMES


@dataclass(frozen=True)
class Savings:
    decided_at: int  # items the decision used, in hand-out order
    items_total: int
    items_not_needed: int
    ratings_not_needed: int  # ratings (item by expert) the round planned beyond the decision
    median_item_seconds: float | None  # one expert, one item
    expert_hours: float | None  # the items not needed, each by every rater, at that pace
    reason: str | None  # why expert_hours is undefined

    def as_dict(self) -> dict:
        return asdict(self)


def decision_savings(
    *,
    decided_at: int,
    items_total: int,
    ratings_needed: int,
    ratings_planned: int,
    raters_per_item: int,
    median_item_seconds: float | None,
) -> Savings:
    items_not_needed = max(0, items_total - decided_at)
    hours, reason = None, None
    if median_item_seconds is None:
        reason = NO_ITEM_TIMES
    else:
        hours = items_not_needed * raters_per_item * median_item_seconds / 3600.0
    return Savings(
        decided_at=decided_at,
        items_total=items_total,
        items_not_needed=items_not_needed,
        ratings_not_needed=max(0, ratings_planned - ratings_needed),
        median_item_seconds=median_item_seconds,
        expert_hours=hours,
        reason=reason,
    )
