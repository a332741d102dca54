from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models.rubrics import ImmutableModel
from judging import ensemble_vote, judge_settings
from judging.models.config import JudgeConfig, PromptTemplate


class JudgeVersion(ImmutableModel):
    """One immutable state of a judge configuration: every setting that can change a
    verdict. Editing those settings makes a new version; a run, a gate evaluation and a
    published leaderboard each name the version they used, so evidence gathered for one
    version never vouches for another."""

    class Source(models.TextChoices):
        LLM = judge_settings.LLM, _("LLM called by Concord")
        IMPORTED = judge_settings.IMPORTED, _("verdicts imported from a file")

    config = models.ForeignKey(JudgeConfig, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField(_("version"))
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.LLM)
    model = models.CharField(_("model"), max_length=200)
    base_url = models.URLField(_("base URL"), max_length=300, blank=True)
    temperature = models.FloatField(
        _("temperature"), default=0.0, validators=[MinValueValidator(0), MaxValueValidator(2)]
    )
    seed = models.IntegerField(_("seed"), null=True, blank=True)
    max_output_tokens = models.PositiveIntegerField(_("max output tokens"), default=4096)
    structured_output = models.BooleanField(_("use structured output (json_schema)"), default=True)
    prompt = models.ForeignKey(
        PromptTemplate,
        on_delete=models.PROTECT,
        related_name="judge_versions",
        null=True,
        blank=True,
    )
    # An ensemble judge (judging.ensemble_vote): k samples of these settings, or a panel of
    # other versions (by pk), with a majority vote per criterion. None: a single judge.
    ensemble = models.JSONField(_("ensemble"), null=True, blank=True)
    fingerprint = models.CharField(_("fingerprint of the settings"), max_length=64)
    note = models.CharField(_("change note"), max_length=300, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True
    )
    created = models.DateTimeField(auto_now_add=True)
    # Where the version came from, when it was built from what experts said on a round's
    # calibration part (judging.services.judge_derive): the gate and judge selection then
    # read only that round's held-out items for it.
    parent = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="derived"
    )
    derived_from_round = models.ForeignKey(
        "annotation.ReviewRound",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("derived from the calibration part of"),
    )
    # Few-shot examples rendered into every prompt of this version (judging.prompting),
    # chosen from a round's calibration part (judging.services.fewshot); part of the
    # settings and so of the fingerprint.
    examples = models.JSONField(_("few-shot examples"), default=list, blank=True)

    class Meta:
        ordering = ["config", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["config", "number"], name="judge_version_number"),
            models.UniqueConstraint(
                fields=["config", "fingerprint"], name="judge_version_fingerprint"
            ),
        ]
        verbose_name = _("judge version")
        verbose_name_plural = _("judge versions")

    def __str__(self) -> str:
        return f"{self.config.name} v{self.number}"

    @property
    def label(self) -> str:
        return f"{self.config.name} v{self.number}"

    def settings(self) -> dict:
        """The settings as `judge_settings` defines them, the prompt by its full text."""
        prompt = self.prompt
        return judge_settings.judge_settings(
            source=self.source,
            model=self.model,
            base_url=self.base_url,
            temperature=self.temperature,
            seed=self.seed,
            max_output_tokens=self.max_output_tokens,
            structured_output=self.structured_output,
            prompt=None
            if prompt is None
            else judge_settings.prompt_settings(
                name=prompt.name,
                version=prompt.version,
                kind=prompt.kind,
                language=prompt.language,
                system_text=prompt.system_text,
                user_text=prompt.user_text,
            ),
            ensemble=ensemble_settings(self.ensemble),
            examples=self.examples,
        )


def ensemble_settings(ensemble: dict | None) -> dict | None:
    """The ensemble as the fingerprint counts it: a panel by its members' settings (their
    fingerprints, in a fixed order), not by their row ids."""
    if not ensemble or ensemble.get("kind") != ensemble_vote.PANEL:
        return ensemble
    fingerprints = dict(
        JudgeVersion.objects.filter(pk__in=ensemble["members"]).values_list("pk", "fingerprint")
    )
    return {
        "kind": ensemble_vote.PANEL,
        "members": sorted(fingerprints.get(pk, str(pk)) for pk in ensemble["members"]),
    }
