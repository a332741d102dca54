"""How much work an expert has in a round: where they are, what is left, how long it takes.

Read on every annotation page, so it is two queries whatever the size of the round or of the
expert's share."""

import math
import statistics
from dataclasses import dataclass

from annotation.models import Assignment, ReviewRound
from annotation.selectors.pool_standing import assignments_in_round, round_progress

# An expert's work not yet submitted: what holds a place in the round.
OPEN_WORK = [Assignment.Status.ASSIGNED, Assignment.Status.IN_PROGRESS]


def share_of(round_: ReviewRound, *, items: int, experts: int) -> int:
    """Most items one expert takes: the configured cap, else an even share of the work."""
    if round_.max_items_per_expert:
        return round_.max_items_per_expert
    return math.ceil(items * round_.raters_per_item / max(1, experts))


@dataclass(frozen=True)
class Workload:
    share: int  # items the expert is meant to take in the round
    done: int  # items they have submitted
    position: int | None  # place of the item on the page among theirs (1-based)
    holding: bool  # they hold an item they have not submitted
    round_left: int  # items of the round still lacking a rater's submission
    median_seconds: float | None  # their median active time per timed submitted item here
    skipped: int
    timed: int = 0  # submitted items with an active time (none without the page's script)

    @property
    def total(self) -> int:
        """ "Item 4 of 13": the share, or more if they took items nobody else could finish."""
        return max(self.share, self.done + int(self.holding))

    @property
    def mine_left(self) -> int:
        """Items left in their share, the one they hold included."""
        return max(0, self.total - self.done)

    @property
    def estimate_minutes(self) -> int | None:
        if self.median_seconds is None or not self.mine_left:
            return None
        return max(1, round(self.median_seconds * self.mine_left / 60))

    @property
    def median_minutes(self) -> float | None:
        return None if self.median_seconds is None else self.median_seconds / 60


def expert_workload(*, expert, round_: ReviewRound, assignment_id: int | None = None) -> Workload:
    expert_id = getattr(expert, "pk", expert)
    mine = assignments_in_round(expert_id=expert_id, round_id=round_.pk)
    items, experts, round_left = round_progress(
        round_id=round_.pk, raters=round_.raters_per_item, open_statuses=OPEN_WORK
    )
    kept = [row for row in mine if row[1] != Assignment.Status.SKIPPED]
    times = [seconds for _pk, status, seconds in kept if status == Assignment.Status.SUBMITTED]
    # An item submitted without active time (no script on the page, an imported vote) says
    # nothing about pace: the median is of the timed ones, or none at all.
    timed = [seconds for seconds in times if seconds > 0]
    position = next((i for i, row in enumerate(kept, 1) if row[0] == assignment_id), None)
    return Workload(
        share=share_of(round_, items=items, experts=experts),
        done=len(times),
        position=position,
        holding=any(status in OPEN_WORK for _pk, status, _s in kept),
        round_left=round_left,
        median_seconds=statistics.median(timed) if timed else None,
        skipped=len(mine) - len(kept),
        timed=len(timed),
    )


def submitted_items(*, expert, round_: ReviewRound) -> list[Assignment]:
    """The expert's submitted items of the round, in the order they took them: only the
    code and their own dates, nothing of who else rated them."""
    return list(
        Assignment.objects.filter(
            expert=expert, item__round=round_, status=Assignment.Status.SUBMITTED
        )
        .select_related("item")
        .only("pk", "revision", "submitted", "item__code")
        .order_by("pk")
    )
