from django.db import models
from django.utils.translation import gettext_lazy as _

from judging.models.versions import JudgeVersion


class OutputProbe(models.Model):
    """What a judge version's endpoint answered when asked once for structured output (a
    `json_schema` response format), and the way of asking Concord uses from then on. A
    version's endpoint and model never change, so one answer serves every later run of the
    version; each probe is kept, never overwritten."""

    class Finding(models.TextChoices):
        ACCEPTED = "accepted", _("structured output accepted")
        REFUSED = "refused", _("structured output refused")

    class Mode(models.TextChoices):
        JSON_SCHEMA = "json_schema", _("structured output (json_schema)")
        PLAIN_JSON = "plain_json", _("plain JSON, checked against the schema")

    judge_version = models.ForeignKey(
        JudgeVersion, on_delete=models.CASCADE, related_name="output_probes"
    )
    # The endpoint and model as probed (the version's, kept with the answer they gave).
    base_url = models.URLField(max_length=300, blank=True)
    model = models.CharField(max_length=200)
    finding = models.CharField(max_length=10, choices=Finding.choices)
    # The provider's own words when it refused, trimmed and with anything like a key removed.
    provider_message = models.CharField(max_length=500, blank=True)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    mode = models.CharField(max_length=12, choices=Mode.choices)
    probed = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-probed", "-pk"]
        verbose_name = _("structured output probe")
        verbose_name_plural = _("structured output probes")

    def __str__(self) -> str:
        return f"{self.judge_version} {self.finding}"

    @property
    def refused(self) -> bool:
        return self.finding == self.Finding.REFUSED
