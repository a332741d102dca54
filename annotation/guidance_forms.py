"""The coordinator's forms for the FAQ and the worked examples: they parse and bound the
input; saving (and the audit record) is annotation/services/guidance.py's."""

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.models import Ability
from annotation.models.guidance import QUESTION_MAX_LENGTH, TITLE_MAX_LENGTH

TEXT_MAX_LENGTH = 20_000
MARKDOWN_HELP = _(
    "Markdown: headings, bold, italics, lists, tables and links; raw HTML is not shown."
)


class AbilityChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Ability) -> str:
        return f"{obj.name} ({obj.label})" if obj.name != obj.label else obj.label


class AbilitiesChoice(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Ability) -> str:
        return f"{obj.name} ({obj.label})" if obj.name != obj.label else obj.label


class FaqEntryForm(forms.Form):
    question = forms.CharField(label=_("Question"), max_length=QUESTION_MAX_LENGTH)
    answer = forms.CharField(
        label=_("Answer"),
        max_length=TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=MARKDOWN_HELP,
    )
    abilities = AbilitiesChoice(
        label=_("Shown next to the criteria of these abilities"),
        queryset=Ability.objects.all(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )


class WorkedExampleForm(forms.Form):
    ability = AbilityChoice(label=_("Ability"), queryset=Ability.objects.all())
    title = forms.CharField(label=_("Title"), max_length=TITLE_MAX_LENGTH)
    body = forms.CharField(
        label=_("Worked example"),
        max_length=TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 10}),
        help_text=MARKDOWN_HELP,
    )
