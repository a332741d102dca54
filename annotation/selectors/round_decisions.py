"""What the coordinator is told about a round's early decision, and the experts' pace.

The sequential test itself belongs to the leaderboard; it records its first decision on a
round in the audit log as an action annotation registers, which is where the round pages read
it from."""

import statistics
from collections.abc import Iterable

from annotation import audit_actions
from annotation.models import Assignment, ReviewRound
from core.models import AuditEvent


def round_median_item_seconds(*, round_: ReviewRound) -> float | None:
    """The median active time of the round's submitted items, over those with a recorded
    time (imported votes have none); None when no item has one."""
    seconds = list(
        Assignment.objects.filter(
            item__round=round_, status=Assignment.Status.SUBMITTED, active_seconds__gt=0
        ).values_list("active_seconds", flat=True)
    )
    return float(statistics.median(seconds)) if seconds else None


def round_decision_notices(*, round_ids: Iterable[int]) -> dict[int, dict]:
    """Per round that has one: the details of the sequential test's first decision (the
    decision, the items it used of the round's, when), newest event per round. One query."""
    wanted = set(round_ids)
    notices: dict[int, dict] = {}
    for created, details in (
        AuditEvent.objects.filter(
            action=audit_actions.ROUND_DECIDED, details__round_id__in=list(wanted)
        )
        .order_by("created", "pk")
        .values_list("created", "details")
    ):
        round_id = (details or {}).get("round_id")
        if round_id in wanted:
            notices[round_id] = {**details, "at": created}
    return notices
