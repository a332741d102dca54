from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from accounts.throttle import client_ip, login_is_locked


class ThrottledAuthenticationForm(AuthenticationForm):
    """The login form, telling the user when sign-in is paused rather than repeating
    "wrong password" to someone who may have just remembered the right one."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "throttled": _(
            "Too many failed sign-in attempts for this username from your address. "
            "Sign-in is paused for %(minutes)d minutes; please try again later."
        ),
    }

    @property
    def locked_out(self) -> bool:
        return any(e.code == "throttled" for e in self.errors.as_data().get("__all__", []))

    def get_invalid_login_error(self) -> ValidationError:
        username = self.cleaned_data.get("username")
        if (
            self.request is not None
            and username is not None
            and login_is_locked(username=username, ip=client_ip(self.request))
        ):
            return ValidationError(
                self.error_messages["throttled"],
                code="throttled",
                params={"minutes": max(1, settings.LOGIN_LOCKOUT_SECONDS // 60)},
            )
        return super().get_invalid_login_error()
