import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.benchmarks import Case
from annotation.models.taxonomy import Ability

WEIGHT_MIN = -10
WEIGHT_MAX = 10


class ImmutableRecordError(Exception):
    pass


class ImmutableModel(models.Model):
    """A row that is written once: history must stay exactly as it was judged."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ImmutableRecordError(f"{type(self).__name__} rows are immutable")
        super().save(*args, **kwargs)


class RubricVersion(ImmutableModel):
    class Source(models.TextChoices):
        IMPORT = "import", _("import")
        EDITOR = "editor", _("editor")
        RESTORE = "restore", _("restore")
        API = "api", _("API")

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="rubric_versions")
    number = models.PositiveIntegerField(_("version"))
    parent = models.ForeignKey(
        "self", on_delete=models.RESTRICT, null=True, blank=True, related_name="children"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True
    )
    note = models.CharField(_("change note"), max_length=500, blank=True)
    source = models.CharField(_("source"), max_length=10, choices=Source.choices)
    # Hash of the ordered criteria, so an unchanged re-import is recognised in one lookup.
    content_hash = models.CharField(max_length=64, db_index=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["case", "number"]
        get_latest_by = "number"
        constraints = [
            models.UniqueConstraint(fields=["case", "number"], name="rubric_version_number_unique")
        ]
        verbose_name = _("rubric version")
        verbose_name_plural = _("rubric versions")

    def __str__(self) -> str:
        return f"{self.case_id} v{self.number}"


class Criterion(ImmutableModel):
    rubric_version = models.ForeignKey(
        RubricVersion, on_delete=models.CASCADE, related_name="criteria"
    )
    position = models.PositiveSmallIntegerField(_("position"))
    # The same key across versions marks the same criterion, edited or moved: diffs and
    # rebases match criteria by key, not by position or text.
    key = models.UUIDField(_("key"), default=uuid.uuid4, editable=False)
    ability = models.ForeignKey(Ability, on_delete=models.PROTECT, related_name="criteria")
    # None for a criterion without a weight (normally the catastrophic one).
    weight = models.SmallIntegerField(_("weight"), null=True, blank=True)
    text = models.TextField(_("text"))
    is_catastrophic = models.BooleanField(_("catastrophic"), default=False)

    class Meta:
        ordering = ["rubric_version", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["rubric_version", "position"], name="criterion_position_unique"
            ),
            models.CheckConstraint(
                condition=Q(weight__isnull=True)
                | Q(weight__gte=WEIGHT_MIN, weight__lte=WEIGHT_MAX),
                name="criterion_weight_range",
            ),
        ]
        verbose_name = _("criterion")
        verbose_name_plural = _("criteria")

    def __str__(self) -> str:
        return f"{self.position}. {self.text[:60]}"

    @property
    def is_penalty(self) -> bool:
        return self.weight is not None and self.weight < 0
