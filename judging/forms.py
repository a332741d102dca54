from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.models import Benchmark, System
from judging.models import JudgeConfig, PromptTemplate
from judging.validators import validate_key_variable_name


class JudgeConfigForm(forms.ModelForm):
    base_url = forms.URLField(
        label=_("base URL"), max_length=300, required=False, assume_scheme="https"
    )

    class Meta:
        model = JudgeConfig
        fields = [
            "name",
            "base_url",
            "model",
            "api_key_env",
            "prompt",
            "structured_output",
            "temperature",
            "seed",
            "max_output_tokens",
            "timeout_seconds",
            "max_concurrency",
            "requests_per_minute",
            "max_attempts",
            "backoff_seconds",
            "price_prompt_per_1k",
            "price_completion_per_1k",
            "is_simulated",
        ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["prompt"].queryset = PromptTemplate.objects.filter(
            kind=PromptTemplate.Kind.JUDGE
        )
        self.fields["prompt"].required = True
        self.fields["prompt"].label = _("Prompt")

    def clean_api_key_env(self) -> str:
        value = self.cleaned_data["api_key_env"].strip()
        try:
            validate_key_variable_name(value)
        except forms.ValidationError:
            # Neither stored nor shown back on the page.
            self.data = self.data.copy()
            self.data["api_key_env"] = ""
            raise
        return value


class JudgeRunForm(forms.Form):
    benchmark = forms.ModelChoiceField(label=_("Benchmark"), queryset=Benchmark.objects.all())
    systems = forms.ModelMultipleChoiceField(
        label=_("Systems"), queryset=System.objects.all(), widget=forms.CheckboxSelectMultiple
    )
    config = forms.ModelChoiceField(
        label=_("Judge configuration"), queryset=JudgeConfig.objects.filter(prompt__isnull=False)
    )
    fresh_calls = forms.BooleanField(
        label=_("Make fresh calls (do not reuse answers to identical requests)"), required=False
    )
