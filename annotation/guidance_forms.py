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


def _ability_label(ability: Ability) -> str:
    """The name in the reader's language, with the label benchmark files use beside it."""
    return ability.label if ability.name == ability.label else f"{ability.name} ({ability.label})"


class AbilityChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Ability) -> str:
        return _ability_label(obj)


class AbilitiesChoice(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Ability) -> str:
        return _ability_label(obj)


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
