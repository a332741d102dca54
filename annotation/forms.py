from django import forms
from django.core.validators import validate_slug
from django.utils.translation import gettext_lazy as _

from annotation.models import Case, ReviewRound, System


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
    difficulty = forms.ChoiceField(
        label=_("Difficulty of every case"),
        choices=[("", _("as each row says")), *Case.Difficulty.choices],
        required=False,
        help_text=_(
            "For files whose rows carry no difficulty, such as HeartBench's question_normal "
            "and question_hard files."
        ),
    )
    file = forms.FileField(label=_("Question file (JSON Lines)"))


class ResponsesImportForm(forms.Form):
    benchmark = forms.SlugField(label=_("Benchmark slug"), max_length=100)
    system = forms.CharField(label=_("System name"), max_length=200, help_text=_("Created if new."))
    kind = forms.ChoiceField(
        label=_("System kind"), choices=System.Kind.choices, initial=System.Kind.LLM
    )
    file = forms.FileField(label=_("Answers file (JSON Lines)"))


class ReviewRoundForm(forms.Form):
    # Chosen above the form (`benchmark_for_round_form`): the systems offered are its own.
    benchmark = forms.ModelChoiceField(
        label=_("Benchmark"), queryset=None, widget=forms.HiddenInput
    )
    name = forms.CharField(label=_("Round name"), max_length=100)
    systems = forms.ModelMultipleChoiceField(
        label=_("Systems"), queryset=System.objects.all(), widget=forms.CheckboxSelectMultiple
    )
    experts = forms.ModelMultipleChoiceField(
        label=_("Expert pool"), queryset=None, widget=forms.CheckboxSelectMultiple
    )
    fraction = forms.FloatField(
        label=_("Sampling fraction"),
        initial=0.3,
        min_value=0.01,
        max_value=1.0,
        help_text=_("Stratified by difficulty, scenario and system."),
    )
    seed = forms.IntegerField(label=_("Random seed"), initial=20251)
    sampling = forms.ChoiceField(
        label=_("Sampling design"),
        # Sampling where the judge is unsure needs a judge run: its own page (judging).
        choices=ReviewRound.Sampling.choices[:2],
        initial=ReviewRound.Sampling.PROPORTIONAL,
        required=False,
        help_text=_(
            "By system: the same number of items from every system, so a small system is "
            "checked as closely as a large one. Each item keeps the chance it had of being "
            "drawn, and the agreement is weighted by its inverse."
        ),
    )
    calibration_share = forms.FloatField(
        label=_("Calibration share"),
        initial=0.0,
        required=False,
        min_value=0.0,
        max_value=1.0,
        help_text=_(
            "The share of items set aside, from the seed, when the round opens, to improve a "
            "judge with; the rest is held out to judge it. 0: no split."
        ),
    )
    raters_per_item = forms.IntegerField(label=_("Raters per item"), initial=3, min_value=1)
    max_items_per_expert = forms.IntegerField(
        label=_("Cap per expert (0: an even share)"), initial=0, min_value=0
    )
    deadline = forms.DateField(
        label=_("Deadline"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    is_calibration = forms.BooleanField(label=_("Calibration round"), required=False)
    show_difficulty = forms.BooleanField(
        label=_("Show raters whether a case is hard"),
        required=False,
        help_text=_("Off by default: knowing a case is hard can bias a rater."),
    )
    close_when_decided = forms.BooleanField(
        label=_("Close automatically when the sequential test decides"),
        required=False,
        help_text=_(
            "Items handed out but not opened are given back; everything rated stays in the report."
        ),
    )

    def __init__(self, *args, benchmark=None, **kwargs) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models import Q

        from annotation.models import Benchmark

        super().__init__(*args, **kwargs)
        self.fields["benchmark"].queryset = Benchmark.objects.all()
        self.fields["benchmark"].initial = benchmark.pk if benchmark else None
        # Only systems that answered the benchmark: another benchmark's system would give
        # an empty or partial sample.
        self.fields["systems"].queryset = (
            System.objects.filter(responses__case__benchmark=benchmark).distinct()
            if benchmark
            else System.objects.none()
        )
        annotate = Q(groups__permissions__codename="annotate") | Q(
            user_permissions__codename="annotate"
        )
        self.fields["experts"].queryset = (
            get_user_model()
            .objects.filter(annotate, is_active=True)
            .distinct()
            .order_by("username")
        )
