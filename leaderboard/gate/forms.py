from decimal import Decimal

from django import forms
from django.utils.translation import gettext_lazy as _

from leaderboard.gate.services.policy_edit import MINIMUM_THRESHOLD
from leaderboard.models import GatePolicy


class GatePolicyForm(forms.Form):
    rule = forms.ChoiceField(
        label=_("Rule"), choices=GatePolicy.Rule.choices, widget=forms.RadioSelect
    )
    # Psychologists read and type agreement as a percentage, as every page shows it.
    threshold_percent = forms.DecimalField(
        label=_("Threshold (% agreement with the experts' majority)"),
        min_value=Decimal(round(100 * MINIMUM_THRESHOLD)),
        max_value=Decimal(100),
        decimal_places=1,
        max_digits=4,
    )
    min_raters = forms.IntegerField(
        label=GatePolicy._meta.get_field("min_raters").verbose_name,
        help_text=GatePolicy._meta.get_field("min_raters").help_text,
        min_value=1,
        max_value=20,
        required=False,
    )
    max_bias_points = forms.DecimalField(
        label=GatePolicy._meta.get_field("max_bias_points").verbose_name,
        help_text=GatePolicy._meta.get_field("max_bias_points").help_text,
        min_value=Decimal(0),
        max_value=Decimal(100),
        decimal_places=1,
        max_digits=4,
        required=False,
    )
    chance_statistic = forms.ChoiceField(
        label=GatePolicy._meta.get_field("chance_statistic").verbose_name,
        choices=GatePolicy.Chance.choices,
        required=False,
    )
    min_chance = forms.DecimalField(
        label=GatePolicy._meta.get_field("min_chance").verbose_name,
        help_text=GatePolicy._meta.get_field("min_chance").help_text,
        min_value=Decimal(-1),
        max_value=Decimal(1),
        decimal_places=2,
        max_digits=3,
        required=False,
    )
    allow_rubric_changes = forms.BooleanField(
        label=GatePolicy._meta.get_field("allow_rubric_changes").verbose_name,
        help_text=GatePolicy._meta.get_field("allow_rubric_changes").help_text,
        required=False,
    )

    @classmethod
    def for_policy(cls, policy: GatePolicy) -> "GatePolicyForm":
        return cls(
            initial={
                "rule": policy.rule,
                "threshold_percent": Decimal(str(round(100 * policy.threshold, 1))),
                "allow_rubric_changes": policy.allow_rubric_changes,
                "min_raters": policy.min_raters,
                "chance_statistic": policy.chance_statistic,
                "min_chance": None
                if policy.min_chance is None
                else Decimal(str(policy.min_chance)),
                "max_bias_points": None
                if policy.max_bias_points is None
                else Decimal(str(policy.max_bias_points)),
            }
        )
