from django import template

from leaderboard.bundles.citation import bundle_hash as _bundle_hash

register = template.Library()


@register.simple_tag
def bundle_hash(snapshot) -> str:
    """The published leaderboard's bundle hash (see leaderboard.bundles.citation)."""
    return _bundle_hash(snapshot)
