"""Adjudication: a senior expert (or coordinator) reads an item's votes and records
decisions beside them. Reading them is recorded too: whoever has read a round's votes is
never handed its items to rate."""

from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from annotation import audit_actions
from annotation.models import Adjudication, Criterion, Flag, ReviewItem
from annotation.services.review_votes import VoteInvalid, note_too_long
from annotation.services.votes_seen import item_votes_seen_record
from core.audit.services import audit_record


@dataclass(frozen=True)
class Decision:
    criterion: Criterion | None  # None: a note on the whole item
    decision: bool | None
    note: str = ""


def item_adjudicate(*, item: ReviewItem, by, decisions: list[Decision]) -> list[Adjudication]:
    """Record the decisions together, all or none (a refused note or a failed write leaves
    nothing half-recorded), then mark the item's flags resolved. A decision replaces the
    earlier one on the same criterion; the raw votes never change."""
    for decision in decisions:
        position = decision.criterion.position if decision.criterion else None
        refused = note_too_long(decision.note, position=position)
        if refused:
            raise VoteInvalid(refused)
        if decision.criterion is not None and decision.criterion.rubric_version_id != (
            item.rubric_version_id
        ):
            raise VoteInvalid(_("This item has no such criterion."))
    with transaction.atomic():
        recorded = [
            Adjudication.objects.update_or_create(
                item=item,
                criterion=decision.criterion,
                defaults={"decision": decision.decision, "note": decision.note, "by": by},
            )[0]
            for decision in decisions
        ]
        item_votes_seen_record(item=item, user=by)
        Flag.objects.filter(assignment__item=item).update(resolved=True)
        audit_record(
            actor=by,
            action=audit_actions.ITEM_ADJUDICATED,
            benchmark=item.round.benchmark,
            details={
                "round": item.round.name,
                "item": item.code,
                "decisions": [
                    {
                        "criterion": d.criterion.position if d.criterion else None,
                        "decision": "undecided"
                        if d.decision is None
                        else ("met" if d.decision else "not_met"),
                    }
                    for d in decisions
                ],
            },
        )
    return recorded
