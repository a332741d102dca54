from django import forms
from django.core.validators import validate_slug
from django.utils.translation import gettext_lazy as _

from annotation.models import System


class BenchmarkImportForm(forms.Form):
    benchmark = forms.CharField(
        label=_("Benchmark slug"),
        max_length=100,
        validators=[validate_slug],
        help_text=_("Letters, digits, hyphens; created if new."),
    )
    name = forms.CharField(
        label=_("Benchmark name (for a new benchmark)"), max_length=200, required=False
    )
    file = forms.FileField(label=_("Question file (JSON Lines)"))


class ResponsesImportForm(forms.Form):
    benchmark = forms.SlugField(label=_("Benchmark slug"), max_length=100)
    system = forms.CharField(label=_("System name"), max_length=200, help_text=_("Created if new."))
    kind = forms.ChoiceField(
        label=_("System kind"), choices=System.Kind.choices, initial=System.Kind.LLM
    )
    file = forms.FileField(label=_("Answers file (JSON Lines)"))
