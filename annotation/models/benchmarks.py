from django.db import models
from django.utils.translation import gettext_lazy as _


class Benchmark(models.Model):
    slug = models.SlugField(_("slug"), unique=True, max_length=100)
    name = models.CharField(_("name"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["slug"]
        verbose_name = _("benchmark")
        verbose_name_plural = _("benchmarks")
        permissions = [
            ("import_data", _("Can import benchmarks and responses")),
            ("view_system_identity", _("Can see which system wrote a response")),
            ("author_rubric", _("Can edit and publish rubrics")),
            ("comment_rubric", _("Can comment on rubrics")),
            ("view_audit", _("Can read the audit log")),
            ("read_api_docs", _("Can read the API schema and documentation")),
        ]

    def __str__(self) -> str:
        return self.name or self.slug


class Scenario(models.Model):
    """A (primary, secondary) scenario label pair; either may be empty in the data."""

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="scenarios")
    primary = models.CharField(_("primary scene"), max_length=200, blank=True)
    secondary = models.CharField(_("secondary scene"), max_length=200, blank=True)

    class Meta:
        ordering = ["primary", "secondary"]
        constraints = [
            models.UniqueConstraint(
                fields=["benchmark", "primary", "secondary"], name="scenario_unique_per_benchmark"
            )
        ]
        verbose_name = _("scenario")
        verbose_name_plural = _("scenarios")

    def __str__(self) -> str:
        return " / ".join(part for part in (self.primary, self.secondary) if part) or "-"


class Case(models.Model):
    class Difficulty(models.TextChoices):
        NORMAL = "normal", _("normal")
        HARD = "hard", _("hard")

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="cases")
    external_id = models.CharField(_("question id"), max_length=100)
    position = models.PositiveIntegerField(_("position in file"), default=0)
    # A list of {"role": "A" | "B", "content": str}; the last turn is the one to answer.
    dialogue = models.JSONField(_("dialogue"))
    difficulty = models.CharField(_("difficulty"), max_length=10, choices=Difficulty.choices)
    scenario = models.ForeignKey(
        Scenario, on_delete=models.RESTRICT, related_name="cases", null=True, blank=True
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["benchmark", "position", "external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["benchmark", "external_id"], name="case_external_id_unique"
            )
        ]
        verbose_name = _("case")
        verbose_name_plural = _("cases")

    def __str__(self) -> str:
        return self.external_id
