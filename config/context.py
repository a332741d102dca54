from django.conf import settings
from django.http import HttpRequest

from config.version import CONCORD_VERSION


def currency(request: HttpRequest) -> dict[str, str]:
    """The one currency of every cost and piece rate, beside each amount."""
    return {"CURRENCY": settings.CURRENCY}


def version(request: HttpRequest) -> dict[str, str]:
    """The version in every page's footer, so a report or a bug names what produced it."""
    return {"CONCORD_VERSION": CONCORD_VERSION}
