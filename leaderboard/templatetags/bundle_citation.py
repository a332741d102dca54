import logging

from django import template
from django.utils.translation import gettext as _

from leaderboard.exports.bundles.citation import bundle_hash as _bundle_hash

register = template.Library()
logger = logging.getLogger(__name__)


@register.simple_tag
def bundle_hash(snapshot) -> str:
    """The published leaderboard's bundle hash (see leaderboard.exports.bundles.citation). A bundle
    that cannot be written is logged and said so: the board itself stays readable."""
    try:
        return _bundle_hash(snapshot)
    except Exception:  # the page shows the board whatever went wrong with its bundle
        logger.exception("the bundle of leaderboard %s could not be written", snapshot.pk)
        return _("not available: the bundle could not be written (see the server log)")
