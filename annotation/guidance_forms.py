"""The coordinator's forms for the FAQ and the worked examples: they parse and bound the
input; saving (and the audit record) is annotation/services/guidance.py's."""

from django import forms
from django.utils.translation import gettext_lazy as _

from annotation.models import Ability
from annotation.models.guidance import QUESTION_MAX_LENGTH, TITLE_MAX_LENGTH
from annotation.selectors.guidance import criterion_keys_named

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
    criteria = forms.CharField(
        label=_("Or only next to these criteria"),
        required=False,
        max_length=5_000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_(
            "One per line: the case's id, # and the criterion's number in its current rubric, "
            "for example c12#3. The entry then follows that criterion into later rubric "
            "versions and is not shown beside the ability's other criteria."
        ),
    )

    def __init__(self, *args, benchmark=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.benchmark = benchmark

    def clean_criteria(self) -> list[str]:
        """The keys of the criteria named, or an error naming each line that names none."""
        lines = [line.strip() for line in self.cleaned_data["criteria"].splitlines()]
        lines = [line for line in lines if line]
        if not lines:
            return []
        found, wrong = criterion_keys_named(benchmark=self.benchmark, refs=lines)
        if wrong:
            raise forms.ValidationError(
                _("No such criterion in the current rubrics: %(refs)s.")
                % {"refs": ", ".join(wrong)}
            )
        return found


class WorkedExampleForm(forms.Form):
    ability = AbilityChoice(label=_("Ability"), queryset=Ability.objects.all())
    title = forms.CharField(label=_("Title"), max_length=TITLE_MAX_LENGTH)
    body = forms.CharField(
        label=_("Worked example"),
        max_length=TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 10}),
        help_text=MARKDOWN_HELP,
    )
