from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models.benchmarks import Case


class System(models.Model):
    """Who wrote responses: an LLM or a human respondent. Never shown to experts."""

    class Kind(models.TextChoices):
        LLM = "llm", _("LLM")
        HUMAN = "human", _("human respondent")

    name = models.CharField(_("name"), max_length=200, unique=True)
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.LLM)
    description = models.TextField(_("description"), blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("system")
        verbose_name_plural = _("systems")

    def __str__(self) -> str:
        return self.name


class Response(models.Model):
    class Source(models.TextChoices):
        IMPORT = "import", _("import")
        GENERATION = "generation", _("generation run")

    system = models.ForeignKey(System, on_delete=models.PROTECT, related_name="responses")
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="responses")
    text = models.TextField(_("text"))
    source = models.CharField(_("source"), max_length=12, choices=Source.choices)
    # Empty, or the generation script's "Error..." text (see annotation.generation_failures):
    # kept, and left out of judge runs and review rounds unless asked for.
    failed_generation = models.BooleanField(_("failed generation"), default=False)
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["case", "system"]
        constraints = [
            models.UniqueConstraint(fields=["system", "case"], name="response_unique_per_case")
        ]
        verbose_name = _("response")
        verbose_name_plural = _("responses")

    def __str__(self) -> str:
        return f"{self.case_id}/{self.system_id}"
