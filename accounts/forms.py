from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.utils.translation import ngettext

from accounts.throttle import USERNAME


class ThrottledAuthenticationForm(AuthenticationForm):
    """The login form, telling the user when sign-in is paused rather than repeating
    "wrong password" to someone who may have just remembered the right one."""

    @property
    def locked_out(self) -> bool:
        return any(e.code == "throttled" for e in self.errors.as_data().get("__all__", []))

    def get_invalid_login_error(self) -> ValidationError:
        refusal = getattr(self.request, "login_refusal", None)
        if refusal is None:
            return super().get_invalid_login_error()
        minutes = refusal.minutes
        if refusal.scope == USERNAME:
            message = ngettext(
                "Too many failed sign-in attempts for this username from several places. "
                "Sign-in from a browser not used with it before is paused for %(minutes)d "
                "minute; please try again later, or from a browser where you have signed in "
                "before.",
                "Too many failed sign-in attempts for this username from several places. "
                "Sign-in from a browser not used with it before is paused for %(minutes)d "
                "minutes; please try again later, or from a browser where you have signed in "
                "before.",
                minutes,
            )
        else:
            message = ngettext(
                "Too many failed sign-in attempts for this username from your address. "
                "Sign-in is paused for %(minutes)d minute; please try again later.",
                "Too many failed sign-in attempts for this username from your address. "
                "Sign-in is paused for %(minutes)d minutes; please try again later.",
                minutes,
            )
        return ValidationError(message, code="throttled", params={"minutes": minutes})
