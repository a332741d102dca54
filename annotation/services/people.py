"""People without the admin: invitations, roles, specialities, activation, reset links and
piece rates, each change written to the audit log. The account mechanics live in accounts;
this layer adds the expert profile and the audit trail, which belong to annotation."""

from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth.models import Group
from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from accounts.invitations import (
    NewInvitation,
    invitation_accept,
    invitation_create,
    invitation_revoke,
)
from accounts.models import Invitation
from accounts.roles import COORDINATOR, ROLES
from accounts.services import user_access_end
from annotation import audit_actions
from annotation.models import ExpertProfile, ReviewRound
from annotation.services.round_pool import assignments_release
from core.audit.services import audit_record

MAX_SPECIALITIES = 20
SPECIALITY_MAX_LENGTH = 200


class PeopleRefused(Exception):
    """A change a coordinator may not make (the message says why)."""


@dataclass(frozen=True)
class PersonChange:
    roles: list[str]
    specialities: list[str]
    is_active: bool
    rate: Decimal | None


def specialities_parse(text: str) -> list[str]:
    """Scene labels typed one per line or separated by commas (Chinese or Latin)."""
    for sep in ("，", "、", ";", "；", "\n"):
        text = text.replace(sep, ",")
    labels = list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if len(labels) > MAX_SPECIALITIES:
        raise PeopleRefused(_("At most %(n)d specialities.") % {"n": MAX_SPECIALITIES})
    if any(len(label) > SPECIALITY_MAX_LENGTH for label in labels):
        raise PeopleRefused(
            _("A speciality is at most %(n)d characters.") % {"n": SPECIALITY_MAX_LENGTH}
        )
    return labels


def _guard_target(user) -> None:
    # An administrator's account is out of a coordinator's reach: a reset link for it would
    # hand over the whole installation.
    if user.is_superuser or user.is_staff:
        raise PeopleRefused(_("Administrator accounts are managed by an administrator."))


def person_invite(
    *, actor, roles: list[str], specialities: list[str], days: int, note: str = ""
) -> NewInvitation:
    with transaction.atomic():
        new = invitation_create(
            created_by=actor, roles=roles, specialities=specialities, days=days, note=note
        )
        audit_record(
            actor=actor,
            action=audit_actions.INVITATION_CREATED,
            details={
                "invitation": new.invitation.pk,
                "roles": new.invitation.roles,
                "expires": new.invitation.expires.isoformat(timespec="minutes"),
            },
        )
    return new


def person_join(*, token: str, username: str, password: str, password2: str):
    """Sign up with an invitation link (raises accounts.invitations.SignUpRefused)."""
    with transaction.atomic():
        user, invitation = invitation_accept(
            token=token, username=username, password=password, password2=password2
        )
        if invitation.specialities:
            ExpertProfile.objects.update_or_create(
                user=user, defaults={"specialities": invitation.specialities}
            )
        audit_record(
            actor=user,
            action=audit_actions.INVITATION_USED,
            details={
                "invitation": invitation.pk,
                "user": user.username,
                "roles": invitation.roles,
                "invited_by": invitation.created_by.username,
            },
        )
    return user


def person_invite_revoke(*, actor, invitation: Invitation) -> bool:
    with transaction.atomic():
        revoked = invitation_revoke(invitation=invitation)
        if revoked:
            audit_record(
                actor=actor,
                action=audit_actions.INVITATION_REVOKED,
                details={"invitation": invitation.pk},
            )
    return revoked


@dataclass(frozen=True)
class PersonUpdated:
    actions: list[str]  # the audit actions written, one per kind of change
    released: int  # unopened items given back to their rounds (on deactivation)


def person_update(*, actor, user, change: PersonChange) -> PersonUpdated:
    """Apply the roles, specialities, activation and own rate. Deactivating gives the
    person's unopened items back to their rounds, so the work does not wait for someone
    who cannot sign in."""
    _guard_target(user)
    roles = [role for role in ROLES if role in change.roles]
    if user.pk == actor.pk and not change.is_active:
        raise PeopleRefused(_("You cannot deactivate your own account."))
    if user.pk == actor.pk and COORDINATOR not in roles:
        raise PeopleRefused(_("You cannot take the Coordinator role from yourself."))
    if change.rate is not None and change.rate < 0:
        raise PeopleRefused(_("A piece rate cannot be negative."))
    written = []
    released = 0
    with transaction.atomic():
        before_roles = sorted(user.groups.values_list("name", flat=True), key=_role_order)
        if before_roles != roles:
            user.groups.set(Group.objects.filter(name__in=roles))
            written.append(
                _audit(
                    actor, audit_actions.ROLES_CHANGED, user, {"from": before_roles, "to": roles}
                )
            )
        if user.is_active != change.is_active:
            user.is_active = change.is_active
            user.save(update_fields=["is_active"])
            action = audit_actions.ACTIVATED if change.is_active else audit_actions.DEACTIVATED
            written.append(_audit(actor, action, user, {}))
            if not change.is_active:
                user_access_end(user=user)
                released = assignments_release(expert=user)
                if released:
                    written.append(
                        _audit(
                            actor, audit_actions.ASSIGNMENTS_RELEASED, user, {"released": released}
                        )
                    )
        profile = ExpertProfile.objects.filter(user=user).first()
        before_specialities = profile.specialities if profile else []
        before_rate = profile.rate_per_item if profile else None
        if before_specialities != change.specialities or before_rate != change.rate:
            profile = profile or ExpertProfile(user=user)
            profile.specialities = change.specialities
            profile.rate_per_item = change.rate
            profile.save()
        if before_specialities != change.specialities:
            written.append(
                _audit(
                    actor,
                    audit_actions.SPECIALITIES_CHANGED,
                    user,
                    {"from": before_specialities, "to": change.specialities},
                )
            )
        if before_rate != change.rate:
            written.append(
                _audit(
                    actor,
                    audit_actions.RATE_CHANGED,
                    user,
                    {"from": _money(before_rate), "to": _money(change.rate)},
                )
            )
    return PersonUpdated(actions=written, released=released)


def round_rate_set(*, actor, round_: ReviewRound, rate: Decimal | None) -> bool:
    if rate is not None and rate < 0:
        raise PeopleRefused(_("A piece rate cannot be negative."))
    if round_.rate_per_item == rate:
        return False
    with transaction.atomic():
        before = round_.rate_per_item
        round_.rate_per_item = rate
        round_.save(update_fields=["rate_per_item"])
        audit_record(
            actor=actor,
            action=audit_actions.RATE_CHANGED,
            benchmark=round_.benchmark,
            details={"round": round_.name, "from": _money(before), "to": _money(rate)},
        )
    return True


def reset_link_create(*, actor, user) -> tuple[str, str]:
    """(uidb64, token) for a one-time password reset link. Django's token generator signs
    the user's password hash and last sign-in into the token, so the link stops working once
    used (or once the person signs in) and after settings.PASSWORD_RESET_TIMEOUT; nothing is
    stored."""
    _guard_target(user)
    if not user.is_active:
        raise PeopleRefused(_("Activate the account before making a reset link."))
    audit_record(
        actor=actor, action=audit_actions.RESET_LINK_CREATED, details={"user": user.username}
    )
    return urlsafe_base64_encode(force_bytes(user.pk)), default_token_generator.make_token(user)


def password_reset_recorded(*, user) -> None:
    audit_record(actor=user, action=audit_actions.PASSWORD_RESET, details={"user": user.username})


def _audit(actor, action, user, details: dict) -> str:
    audit_record(actor=actor, action=action, details={"user": user.username, **details})
    return action.value


def _role_order(name: str) -> int:
    return ROLES.index(name) if name in ROLES else len(ROLES)


def _money(value: Decimal | None) -> str | None:
    return None if value is None else f"{value:.2f}"
