from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models.rubrics import ImmutableModel


class PromptTemplate(ImmutableModel):
    """A versioned prompt: editing one makes a new version, so every run can say exactly
    which words it sent."""

    class Kind(models.TextChoices):
        JUDGE = "judge", _("judge")
        GENERATION = "generation", _("generation")

    name = models.SlugField(_("name"), max_length=100)
    version = models.PositiveIntegerField(_("version"))
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    language = models.CharField(_("language"), max_length=10, default="zh-hans")
    system_text = models.TextField(_("system message"))
    user_text = models.TextField(_("user message"))
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="prompt_version_unique")
        ]
        verbose_name = _("prompt template")
        verbose_name_plural = _("prompt templates")

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"


class JudgeConfig(models.Model):
    """A named judge (or candidate model) and how to call it. What it says is fixed by its
    versions (`JudgeVersion`: model, endpoint, prompt, sampling); what is kept here only
    decides how the calls are made (key, pace, retries, prices) and never changes a verdict,
    so it may be edited in place. The API key itself is never stored: only the name of the
    environment variable that holds it."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    api_key_env = models.CharField(
        _("API key environment variable"),
        max_length=100,
        blank=True,
        help_text=_("Name of the environment variable holding the key, e.g. OPENAI_API_KEY."),
    )
    timeout_seconds = models.FloatField(_("timeout (s)"), default=120.0)
    max_concurrency = models.PositiveIntegerField(
        _("max concurrent requests"), default=8, validators=[MinValueValidator(1)]
    )
    requests_per_minute = models.PositiveIntegerField(
        _("requests per minute (0: no limit)"), default=0
    )
    max_attempts = models.PositiveIntegerField(
        _("max attempts per response"), default=5, validators=[MinValueValidator(1)]
    )
    backoff_seconds = models.FloatField(
        _("first retry delay (s)"),
        default=1.0,
        help_text=_(
            "Doubles with each attempt (with jitter), up to a minute; a server's "
            "Retry-After is honoured."
        ),
    )
    price_prompt_per_1k = models.DecimalField(
        _("price per 1k prompt tokens"), max_digits=10, decimal_places=6, default=0
    )
    price_completion_per_1k = models.DecimalField(
        _("price per 1k completion tokens"), max_digits=10, decimal_places=6, default=0
    )
    is_simulated = models.BooleanField(_("simulated provider"), default=False)
    # The version new runs use: the newest, unless an edit went back to an earlier
    # version's settings (that version is then current again; none is ever duplicated).
    current_version = models.ForeignKey(
        "judging.JudgeVersion",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("judge configuration")
        verbose_name_plural = _("judge configurations")
        permissions = [("run_judge", _("Can configure and run LLM judges"))]

    def __str__(self) -> str:
        return self.name
