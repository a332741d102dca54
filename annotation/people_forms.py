from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.invitations import MAX_DAYS
from accounts.roles import EXPERT, ROLES


def _role_choices():
    # Role names are stored untranslated (accounts.roles); the label is translated on show.
    return [(role, _(role)) for role in ROLES]


SPECIALITIES_HELP = _(
    "Primary scene labels, separated by commas, e.g. 职场心理, 亲密关系. "
    "Items of these scenes are handed to the expert first."
)


class InviteForm(forms.Form):
    roles = forms.MultipleChoiceField(
        label=_("Roles"),
        choices=_role_choices,
        initial=[EXPERT],
        widget=forms.CheckboxSelectMultiple,
    )
    specialities = forms.CharField(
        label=_("Specialities"), required=False, max_length=2000, help_text=SPECIALITIES_HELP
    )
    days = forms.IntegerField(
        label=_("Link valid for (days)"), min_value=1, max_value=MAX_DAYS, initial=7
    )
    note = forms.CharField(label=_("Note (who the link is for)"), required=False, max_length=200)


class PersonForm(forms.Form):
    roles = forms.MultipleChoiceField(
        label=_("Roles"),
        choices=_role_choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    specialities = forms.CharField(
        label=_("Specialities"), required=False, max_length=2000, help_text=SPECIALITIES_HELP
    )
    is_active = forms.BooleanField(
        label=_("Active (may sign in)"),
        required=False,
        help_text=_("Deactivating ends the person's open sessions and API access."),
    )
    rate = forms.DecimalField(
        label=_("Own piece rate per item"),
        required=False,
        min_value=0,
        max_digits=8,
        decimal_places=2,
        help_text=_("Empty: the rate of each round applies."),
    )


class RoundRateForm(forms.Form):
    rate = forms.DecimalField(
        label=_("Piece rate per item for this round"),
        required=False,
        min_value=0,
        max_digits=8,
        decimal_places=2,
        help_text=_("Paid to the round's experts who have no rate of their own."),
    )


class SignUpForm(forms.Form):
    username = forms.CharField(label=_("Username"), max_length=150)
    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
