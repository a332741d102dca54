"""One-time sign-up links. The token lives only in the link: the database keeps its SHA-256,
so a copy of the database cannot be turned into a working link. A token carries 256 random
bits, which is why a plain (fast) hash is enough."""

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass
from enum import StrEnum

from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Invitation
from accounts.roles import ROLES
from accounts.usernames import username_normalise, username_taken

MAX_DAYS = 30


class InvitationState(StrEnum):
    VALID = "valid"
    UNKNOWN = "unknown"
    USED = "used"
    EXPIRED = "expired"
    REVOKED = "revoked"


class SignUpRefused(Exception):
    """The sign-up cannot go ahead; `errors` maps form fields ("" for the whole form) to
    messages."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__("; ".join(m for ms in errors.values() for m in ms))
        self.errors = errors


@dataclass(frozen=True)
class NewInvitation:
    invitation: Invitation
    token: str  # shown once, never stored


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def invitation_create(
    *, created_by, roles: list[str], specialities: list[str], days: int, note: str = ""
) -> NewInvitation:
    unknown = [role for role in roles if role not in ROLES]
    if not roles or unknown:
        raise ValueError(_("Choose at least one of the roles."))
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(_("A link lasts from 1 to %(n)d days.") % {"n": MAX_DAYS})
    token = secrets.token_urlsafe(32)
    invitation = Invitation.objects.create(
        token_hash=token_hash(token),
        roles=sorted(set(roles), key=ROLES.index),
        specialities=specialities,
        note=note,
        created_by=created_by,
        expires=timezone.now() + dt.timedelta(days=days),
    )
    return NewInvitation(invitation=invitation, token=token)


def invitation_state(invitation: Invitation | None) -> InvitationState:
    if invitation is None:
        return InvitationState.UNKNOWN
    if invitation.revoked:
        return InvitationState.REVOKED
    if invitation.used:
        return InvitationState.USED
    if invitation.expires <= timezone.now():
        return InvitationState.EXPIRED
    return InvitationState.VALID


def invitation_find(token: str) -> Invitation | None:
    # A token is URL-safe base64 of 32 bytes: anything far from that is not worth hashing.
    if not token or len(token) > 100:
        return None
    return Invitation.objects.filter(token_hash=token_hash(token)).first()


def invitation_accept(*, token: str, username: str, password: str, password2: str):
    """Create the invited account with the invitation's roles and spend the link. The row
    is locked, so two people racing with the same link cannot both get an account."""
    User = get_user_model()
    with transaction.atomic():
        found = invitation_find(token)
        invitation = (
            Invitation.objects.select_for_update().filter(pk=found.pk).first() if found else None
        )
        state = invitation_state(invitation)
        if state != InvitationState.VALID:
            raise SignUpRefused({"": [state_message(state)]})
        errors: dict[str, list[str]] = {}
        username = username_normalise(username)
        candidate = User(username=username)
        try:
            candidate.full_clean(exclude=["password"], validate_unique=False)
        except ValidationError as exc:
            errors.update({k: list(v) for k, v in exc.message_dict.items() if k == "username"})
        # Taken also when it only looks like an existing name (accounts.usernames).
        if username and username_taken(username):
            errors.setdefault("username", []).append(_("This username is taken."))
        if password != password2:
            errors.setdefault("password2", []).append(_("The two passwords differ."))
        else:
            try:
                password_validation.validate_password(password, candidate)
            except ValidationError as exc:
                errors.setdefault("password1", []).extend(exc.messages)
        if errors:
            raise SignUpRefused(errors)
        try:
            with transaction.atomic():
                user = User.objects.create_user(username=username, password=password)
        except IntegrityError:
            raise SignUpRefused({"username": [_("This username is taken.")]}) from None
        user.groups.set(Group.objects.filter(name__in=invitation.roles))
        invitation.used = timezone.now()
        invitation.used_by = user
        invitation.save(update_fields=["used", "used_by"])
    return user, invitation


def invitation_revoke(*, invitation: Invitation) -> bool:
    """Revoke a link not yet used; False if it was already used or revoked."""
    with transaction.atomic():
        locked = Invitation.objects.select_for_update().get(pk=invitation.pk)
        if locked.used or locked.revoked:
            return False
        locked.revoked = timezone.now()
        locked.save(update_fields=["revoked"])
    invitation.revoked = locked.revoked
    return True


def state_message(state: InvitationState) -> str:
    messages = {
        InvitationState.UNKNOWN: _(
            "This invitation link is not valid. Check that it was copied whole, or ask your "
            "coordinator for a new one."
        ),
        InvitationState.USED: _(
            "This invitation link has already been used. Sign in with the account made with "
            "it, or ask your coordinator for a new link."
        ),
        InvitationState.EXPIRED: _(
            "This invitation link has expired. Ask your coordinator for a new one."
        ),
        InvitationState.REVOKED: _(
            "This invitation link was withdrawn. Ask your coordinator for a new one."
        ),
    }
    return messages.get(state, "")
