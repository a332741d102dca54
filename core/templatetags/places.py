from django import template

from core.places import place_url as _place_url

register = template.Library()


@register.simple_tag
def place_url(place: str, *args) -> str:
    """`{% place_url "benchmark.leaderboard" benchmark.slug %}`: see core.places."""
    return _place_url(place, *args)
