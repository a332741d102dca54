"""Stopping a review round once the sequential test decides: the decision is recorded
once per round (an audit event the round pages read as the coordinator's notice), and a
round set to close by itself is closed, giving back the items handed out but not opened.

Safe to run again and from several workers at once: the round's row is locked while the
decision is looked up and recorded."""

from django.db import transaction

from annotation import audit_actions
from annotation.models import ReviewRound
from annotation.services.review_rounds import round_set_status
from core.audit.services import audit_record
from core.models import AuditEvent
from leaderboard.sequential.selectors.round_state import round_sequential

CONTINUING, NO_EVIDENCE, RECORDED, ALREADY_RECORDED = (
    "continuing",
    "no evidence",
    "recorded",
    "already recorded",
)


def _recorded(round_: ReviewRound) -> bool:
    return AuditEvent.objects.filter(
        action=audit_actions.ROUND_DECIDED, details__round_id=round_.pk
    ).exists()


def round_decision_check(*, round_id: int) -> str:
    """Evaluate the round's sequential test; on its first decision, record it and, when
    the round asks for that, close it in the same transaction. Only the first decision
    closes: a coordinator who reopens a decided round keeps it open. Returns what
    happened (for logs and tests)."""
    round_ = ReviewRound.objects.select_related("benchmark").filter(pk=round_id).first()
    if round_ is None:
        return NO_EVIDENCE
    if _recorded(round_):
        return ALREADY_RECORDED
    state = round_sequential(round_=round_)
    if not state.decided:
        return NO_EVIDENCE if state.state is None else CONTINUING
    with transaction.atomic():
        locked = ReviewRound.objects.select_for_update().get(pk=round_.pk)
        if _recorded(locked):
            return ALREADY_RECORDED
        sequential = state.state
        audit_record(
            actor=None,
            action=audit_actions.ROUND_DECIDED,
            benchmark=round_.benchmark,
            details={
                "round": locked.name,
                "round_id": locked.pk,
                "decision": sequential["decision"],
                "decided_at": sequential["decided_at"],
                "items_total": sequential["items_total"],
                "ratings_needed": sequential["ratings_needed"],
                "ratings_planned": sequential["ratings_planned"],
                "threshold": sequential["threshold"],
                "alpha": sequential["alpha"],
                "judge_runs": list(state.run_ids),
                "judge": state.judge.label if state.judge else None,
                "judge_name": state.judge.config.name if state.judge else None,
            },
        )
        if locked.close_when_decided and locked.status != ReviewRound.Status.CLOSED:
            round_set_status(
                round_=locked,
                status=ReviewRound.Status.CLOSED,
                release_unstarted=True,
                because="sequential test decided",
            )
    return RECORDED
