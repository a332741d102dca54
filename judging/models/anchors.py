from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models import Benchmark, Criterion, Response, ReviewRound, RubricVersion


class AnchorSet(models.Model):
    """Expert-labelled responses that every judge run on the benchmark judges again, mixed
    blind among its own tasks: the drift test (leaderboard.drift) compares each version's
    later runs with its first ones on them. Fixed once made; a new set replaces the old one
    for the runs that follow, and the old one is kept."""

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="anchor_sets")
    round = models.ForeignKey(
        ReviewRound, on_delete=models.PROTECT, related_name="+", verbose_name=_("round")
    )
    seed = models.BigIntegerField(_("seed"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        # Made in the leaderboard app and moved here (judging/migrations/0018) so that
        # starting a run can read it; the table kept its name.
        db_table = "leaderboard_anchorset"
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"anchors {self.pk} of {self.benchmark.slug} (round {self.round_id})"


class AnchorUnit(models.Model):
    """One anchor criterion: the experts' majority verdict on it in the source round, on the
    rubric version that round froze for the response's case."""

    anchor_set = models.ForeignKey(AnchorSet, on_delete=models.CASCADE, related_name="units")
    response = models.ForeignKey(Response, on_delete=models.PROTECT, related_name="+")
    criterion = models.ForeignKey(Criterion, on_delete=models.PROTECT, related_name="+")
    # A verdict on another version of the case's rubric is not compared with this gold:
    # once the case's rubric changes, the anchor is set aside until a new set is made.
    rubric_version = models.ForeignKey(RubricVersion, on_delete=models.PROTECT, related_name="+")
    gold = models.BooleanField()
    # The anchor response's place in the set's seeded random order: the test reads the
    # responses of each run in it.
    position = models.PositiveIntegerField()

    class Meta:
        db_table = "leaderboard_anchorunit"
        ordering = ["position", "criterion_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["anchor_set", "response", "criterion"], name="anchor_unit_once"
            )
        ]

    def __str__(self) -> str:
        return f"anchor {self.response_id}/{self.criterion_id} of set {self.anchor_set_id}"
