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
