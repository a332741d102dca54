from django.db import models
from django.utils.translation import gettext_lazy as _

from judging.models.runs import JudgeRun


class StoredLeaderboard(models.Model):
    """The leaderboard rows of a finished run under one scoring profile, computed once.

    A finished run's verdicts do not change, so recomputing 160,000 verdicts and their
    bootstrap on every page view is wasted work. `fingerprint` describes the run's tasks as
    they were when the rows were computed and `scoring` the scorer's version: a mismatch on
    either means the rows are recomputed and replaced, never shown.
    """

    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="stored_leaderboards")
    profile = models.CharField(_("scoring profile"), max_length=40)
    scoring = models.PositiveIntegerField(_("scorer version"))
    fingerprint = models.CharField(_("fingerprint of the run's tasks"), max_length=64)
    rows = models.JSONField(default=list)
    computed = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "profile"], name="stored_leaderboard_unique")
        ]
        verbose_name = _("stored leaderboard")
        verbose_name_plural = _("stored leaderboards")

    def __str__(self) -> str:
        return f"run {self.run_id} ({self.profile})"
