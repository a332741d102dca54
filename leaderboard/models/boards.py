from django.db import models
from django.utils.translation import gettext_lazy as _


class StoredBoard(models.Model):
    """The leaderboard rows of a set of finished runs under one scoring profile, computed
    once.

    Finished runs' verdicts do not change, so recomputing 160,000 verdicts and their
    bootstrap on every page view is wasted work. `runs` names the runs ("1,5,9"),
    `fingerprint` describes their tasks as they were when the rows were computed and
    `scoring` the scorer's version: a mismatch on either means the rows are recomputed and
    replaced, never shown.
    """

    runs = models.CharField(_("runs"), max_length=500)
    profile = models.CharField(_("scoring profile"), max_length=40)
    scoring = models.PositiveIntegerField(_("scorer version"))
    fingerprint = models.CharField(_("fingerprint of the runs' tasks"), max_length=64)
    rows = models.JSONField(default=list)
    computed = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["runs", "profile"], name="stored_board_unique")
        ]
        verbose_name = _("stored leaderboard")
        verbose_name_plural = _("stored leaderboards")

    def __str__(self) -> str:
        return f"runs {self.runs} ({self.profile})"
