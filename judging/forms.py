from django import forms
from django.conf import settings
from django.forms.models import fields_for_model
from django.utils.translation import gettext_lazy as _

from annotation.forms import ReviewRoundForm
from annotation.models import Benchmark, ReviewRound, System
from annotation.review_sampling import FLOOR_SHARE, FLOOR_SHARE_MAX
from judging.endpoints import EndpointRefused, key_variable_check
from judging.ensemble_vote import PANEL, self_consistency
from judging.models import JudgeConfig, JudgeRun, JudgeVersion, PromptTemplate
from judging.services.judge_versions import CallSettings, VersionSettings

# The settings of a version (they can change a verdict), then those of the configuration.
VERSION_FIELDS = [
    "model",
    "base_url",
    "prompt",
    "structured_output",
    "temperature",
    "seed",
    "max_output_tokens",
]
CALL_FIELDS = [
    "api_key_env",
    "timeout_seconds",
    "max_concurrency",
    "requests_per_minute",
    "max_attempts",
    "backoff_seconds",
    "price_prompt_per_1k",
    "price_completion_per_1k",
    "is_simulated",
]


class JudgeConfigForm(forms.Form):
    """A configuration and the settings of its current version, edited together; saving
    makes a new version only when a verdict setting changed (judge_config_save)."""

    def __init__(self, *args, config: JudgeConfig | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.config = config
        self.version = config.current_version if config is not None else None
        version_fields = fields_for_model(
            JudgeVersion, fields=[f for f in VERSION_FIELDS if f != "base_url"]
        )
        version_fields["base_url"] = forms.URLField(
            label=_("base URL"), max_length=300, required=False, assume_scheme="https"
        )
        fields = {
            **fields_for_model(JudgeConfig, fields=["name"]),
            **{name: version_fields[name] for name in VERSION_FIELDS},
            **fields_for_model(JudgeConfig, fields=CALL_FIELDS),
        }
        fields["prompt"].queryset = PromptTemplate.objects.filter(kind=PromptTemplate.Kind.JUDGE)
        fields["prompt"].required = True
        fields["prompt"].label = _("Prompt")
        # Named after the setting so that the service's refusal lands on it.
        fields["ensemble"] = forms.IntegerField(
            label=_("Self-consistency samples (0: a single call per response)"),
            help_text=_(
                "Ask the model this many times per response (odd, 3 to 9, with a "
                "temperature above 0) and take the majority per criterion."
            ),
            min_value=0,
            initial=0,
            required=False,
        )
        fields["note"] = forms.CharField(
            label=_("What changed (kept with a new version)"), max_length=300, required=False
        )
        for name in ("price_prompt_per_1k", "price_completion_per_1k"):
            if name in fields:
                fields[name].label = f"{fields[name].label} ({settings.CURRENCY})"
        self.fields.update(fields)
        if config is not None and not self.is_bound:
            version = config.current_version
            self.initial.update({name: getattr(config, name) for name in ["name", *CALL_FIELDS]})
            if version is not None:
                self.initial.update({name: getattr(version, name) for name in VERSION_FIELDS})
                self.initial["ensemble"] = (version.ensemble or {}).get("samples", 0)

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        taken = JudgeConfig.objects.filter(name=name)
        if self.config is not None:
            taken = taken.exclude(pk=self.config.pk)
        if taken.exists():
            raise forms.ValidationError(_("A judge configuration with this name exists."))
        return name

    def clean_api_key_env(self) -> str:
        value = self.cleaned_data["api_key_env"].strip()
        try:
            key_variable_check(value)
        except EndpointRefused as exc:
            # Neither stored nor shown back on the page: it may be a pasted key.
            self.data = self.data.copy()
            self.data["api_key_env"] = ""
            raise forms.ValidationError(str(exc)) from exc
        return value

    def version_settings(self) -> VersionSettings:
        samples = self.cleaned_data.get("ensemble") or 0
        ensemble = self_consistency(samples) if samples else None
        current = self.version
        if current is not None and (current.ensemble or {}).get("kind") == PANEL:
            ensemble = current.ensemble  # a panel is kept; its members are not edited here
        return VersionSettings(
            **{name: self.cleaned_data[name] for name in VERSION_FIELDS}, ensemble=ensemble
        )

    def call_settings(self) -> CallSettings:
        return CallSettings(**{name: self.cleaned_data[name] for name in CALL_FIELDS})

    def hide_refused(self, errors: dict[str, str]) -> None:
        """Attach the service's refusals to their fields; a refused key variable is neither
        stored nor shown back on the page (it may be a pasted key)."""
        for name, message in errors.items():
            self.add_error(name if name in self.fields else None, message)
        if "api_key_env" in errors:
            self.data = self.data.copy()
            self.data["api_key_env"] = ""


class JudgeRunForm(forms.Form):
    benchmark = forms.ModelChoiceField(label=_("Benchmark"), queryset=Benchmark.objects.all())
    systems = forms.ModelMultipleChoiceField(
        label=_("Systems"),
        queryset=System.objects.all(),
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )
    config = forms.ModelChoiceField(
        label=_("Judge configuration"),
        queryset=JudgeConfig.objects.filter(
            current_version__prompt__kind=PromptTemplate.Kind.JUDGE
        ),
    )
    round = forms.ModelChoiceField(
        label=_("Review round (judge exactly its items, on the rubric versions it froze)"),
        queryset=ReviewRound.objects.all(),
        required=False,
    )
    fresh_calls = forms.BooleanField(
        label=_("Make fresh calls (do not reuse answers to identical requests)"), required=False
    )
    failed_generations = forms.BooleanField(
        label=_('Also judge failed generations (empty responses, or beginning with "Error")'),
        required=False,
    )

    def __init__(self, data=None, *, benchmark_id: str = "", **kwargs) -> None:
        """The systems and rounds offered are the chosen benchmark's (from the posted form,
        or `benchmark_id` from the page's address; the only benchmark when there is one),
        so a run cannot mix another benchmark's systems in."""
        super().__init__(data, **kwargs)
        chosen = str((data or {}).get("benchmark") or benchmark_id or "").strip()
        benchmark = None
        if chosen.isdigit():
            benchmark = Benchmark.objects.filter(pk=int(chosen)).first()
        elif Benchmark.objects.count() == 1:
            benchmark = Benchmark.objects.first()
        self.benchmark = benchmark
        if benchmark is not None:
            self.fields["benchmark"].initial = benchmark.pk
            self.fields["systems"].queryset = (
                System.objects.filter(responses__case__benchmark=benchmark)
                .distinct()
                .order_by("name")
            )
            self.fields["round"].queryset = ReviewRound.objects.filter(benchmark=benchmark)


class UncertainRoundForm(ReviewRoundForm):
    """A review round drawn with more weight where a judge run is unsure of a response."""

    judge_run = forms.ModelChoiceField(
        label=_("Judge run that says where the judge is unsure"),
        queryset=JudgeRun.objects.none(),
        help_text=_(
            "A self-consistency or panel run: a response is unsure where its members' votes "
            "differ. Any finished run, with a second one below."
        ),
    )
    second_judge_run = forms.ModelChoiceField(
        label=_("Second judge's run (optional)"),
        queryset=JudgeRun.objects.none(),
        required=False,
        help_text=_("If given, a response is unsure where the two judges' verdicts differ."),
    )
    floor_share = forms.FloatField(
        label=_("Floor, as a share of the mean uncertainty"),
        initial=FLOOR_SHARE,
        min_value=0.01,
        max_value=FLOOR_SHARE_MAX,
        help_text=_(
            "Every response keeps a chance: one the judge is sure of is drawn floor / (1 + "
            "floor) times as often as one of average uncertainty. Each item's chance is "
            "recorded and the agreement weighted by its inverse."
        ),
    )

    def __init__(self, *args, benchmark=None, **kwargs) -> None:
        super().__init__(*args, benchmark=benchmark, **kwargs)
        del self.fields["sampling"]
        self.fields["fraction"].help_text = _(
            "The expected share of the responses drawn: each is drawn on its own, so the "
            "count varies a little around it."
        )
        runs = (
            JudgeRun.objects.finished()
            .filter(benchmark=benchmark)
            .select_related("judge_version__config")
            .order_by("-pk")
            if benchmark
            else JudgeRun.objects.none()
        )
        self.fields["judge_run"].queryset = runs
        self.fields["second_judge_run"].queryset = runs
        for name in ("judge_run", "second_judge_run"):
            self.fields[name].label_from_instance = _run_label

    def clean(self):
        data = super().clean()
        if data.get("judge_run") and data.get("judge_run") == data.get("second_judge_run"):
            self.add_error("second_judge_run", _("Name two different judge runs to compare."))
        return data


def _run_label(run: JudgeRun) -> str:
    return _("Run %(run)d: %(judge)s v%(version)d") % {
        "run": run.pk,
        "judge": run.judge_version.config.name,
        "version": run.judge_version.number,
    }
