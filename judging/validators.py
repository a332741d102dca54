from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _


def validate_key_variable_name(value: str) -> None:
    """The config holds the NAME of the variable with the API key; a pasted key is refused
    (and callers must not show it back)."""
    if value and not (value.replace("_", "").isalnum() and len(value) <= 64):
        raise ValidationError(
            _(
                "This looks like an API key. Enter the name of the environment variable that "
                "holds it (letters, digits and _), never the key itself."
            )
        )
