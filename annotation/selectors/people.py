"""What the people pages show: the accounts with their roles, the open invitations, and
one expert's record (specialities, accuracy on reference items, agreement round by round)."""

from collections import Counter
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db.models import Q

from accounts.invitations import InvitationState, invitation_state
from accounts.models import Invitation
from accounts.roles import ROLES
from annotation.models import Assignment, ExpertProfile, ReviewRound
from annotation.selectors.review import expert_reference_accuracy
from annotation.selectors.review_dashboard import expert_agreement_by_round, piece_rate


@dataclass
class PersonRow:
    user: object
    roles: list[str]
    specialities: list[str]


@dataclass
class RoundRecord:
    round: ReviewRound
    done: int
    open: int
    agreement: float | None
    rate: Decimal | None
    earned: Decimal | None


@dataclass
class ExpertRecord:
    specialities: list[str]
    own_rate: Decimal | None
    reference_accuracy: float | None
    rounds: list[RoundRecord]


def people_list() -> list[PersonRow]:
    users = (
        get_user_model()
        .objects.order_by("username")
        .prefetch_related("groups")
        .select_related("expert_profile")
    )
    rows = []
    for user in users:
        names = {group.name for group in user.groups.all()}
        profile = getattr(user, "expert_profile", None)
        rows.append(
            PersonRow(
                user=user,
                roles=[role for role in ROLES if role in names],
                specialities=profile.specialities if profile else [],
            )
        )
    return rows


def invitations_recent(*, limit: int = 50) -> list[tuple[Invitation, InvitationState]]:
    invitations = Invitation.objects.select_related("created_by", "used_by")[:limit]
    return [(invitation, invitation_state(invitation)) for invitation in invitations]


def expert_record(*, user) -> ExpertRecord:
    profile = ExpertProfile.objects.filter(user=user).first()
    own_rate = profile.rate_per_item if profile else None
    rounds = (
        ReviewRound.objects.filter(Q(experts=user) | Q(items__assignments__expert=user))
        .distinct()
        .select_related("benchmark")
        .order_by("-created")
    )
    counts = Counter(
        (round_id, status == Assignment.Status.SUBMITTED)
        for round_id, status in Assignment.objects.filter(expert=user).values_list(
            "item__round_id", "status"
        )
    )
    agreement = expert_agreement_by_round(expert=user)
    records = []
    for round_ in rounds:
        done = counts[(round_.pk, True)]
        rate = piece_rate(expert_rate=own_rate, round_rate=round_.rate_per_item)
        records.append(
            RoundRecord(
                round=round_,
                done=done,
                open=counts[(round_.pk, False)],
                agreement=agreement.get(round_.pk),
                rate=rate,
                earned=None if rate is None else rate * done,
            )
        )
    return ExpertRecord(
        specialities=profile.specialities if profile else [],
        own_rate=own_rate,
        reference_accuracy=expert_reference_accuracy(expert=user),
        rounds=records,
    )
