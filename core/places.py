"""Places on a lower app's pages that link to a higher app's page.

A page of annotation shows "Leaderboard" beside a benchmark, but annotation may not name a
leaderboard URL: that would tie it to an app above it. It names a place it owns instead
("benchmark.leaderboard"), and the app that has such a page says which of its URLs fills it
when it starts. A place nobody fills renders no link."""

from django.urls import reverse

_FILLED: dict[str, str] = {}


def place_fill(place: str, url_name: str) -> None:
    """The URL named `url_name` is what `place` links to."""
    known = _FILLED.setdefault(place, url_name)
    if known != url_name:
        raise ValueError(f"place {place!r} is filled by {known!r} already, not {url_name!r}")


def place_url(place: str, *args) -> str:
    """The address `place` links to, or "" when no installed app fills it."""
    url_name = _FILLED.get(place)
    return reverse(url_name, args=args) if url_name else ""


def places_filled() -> dict[str, str]:
    return dict(_FILLED)
