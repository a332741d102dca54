"""Compile the site's templates when a web worker starts, not on the first request for each
page: after a deploy, the first expert to open each page (all of them at once when a round
is announced) would otherwise wait for it, once per worker."""

from pathlib import Path

from django.conf import settings
from django.template.loader import get_template


def templates_compile() -> int:
    """Compile (into the cached loader) every template under the project's template
    directories; returns how many."""
    compiled = 0
    for directory in settings.TEMPLATES[0]["DIRS"]:
        for path in sorted(Path(directory).rglob("*.html")):
            get_template(path.relative_to(directory).as_posix())
            compiled += 1
    return compiled
