from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class LoginCounter(models.Model):
    """Sign-in attempts counted by the login throttle (accounts/throttle.py): of one username
    from one address, or of one username from browsers that never signed in with it. Kept in
    the database so every web worker on every machine counts together, and each count is
    taken under a row lock."""

    # A keyed hash of the scope, username and address: no username is stored here.
    key = models.CharField(max_length=64, primary_key=True)
    count = models.PositiveIntegerField(default=0)
    # The count is forgotten after this (a lock moves it to the lock's end).
    window_ends = models.DateTimeField(db_index=True)
    locked_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("sign-in counter")
        verbose_name_plural = _("sign-in counters")

    def __str__(self) -> str:
        return f"{self.key[:12]}: {self.count}"


class Invitation(models.Model):
    """A one-time sign-up link for a new expert. Only a hash of the link's token is kept: the
    link itself is shown once, to the coordinator who made it."""

    token_hash = models.CharField(max_length=64, unique=True)
    # Group names (accounts.roles) and primary scene labels given to the account on sign-up.
    roles = models.JSONField(default=list)
    specialities = models.JSONField(default=list, blank=True)
    note = models.CharField(_("note"), max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField(_("expires"))
    used = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        permissions = [("manage_people", _("Can invite people and change their roles"))]

    def __str__(self) -> str:
        return f"invitation {self.pk}"
