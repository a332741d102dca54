"""Compile the site's templates when a web worker starts, not on the first request for each
page: after a deploy, the first expert to open each page (all of them at once when a round
is announced) would otherwise wait for it, once per worker."""

import logging
from pathlib import Path

from django.conf import settings
from django.template import TemplateSyntaxError
from django.template.loader import get_template

logger = logging.getLogger(__name__)


def templates_compile() -> int:
    """Compile (into the cached loader) every template under the project's template
    directories; returns how many. A template that does not compile is logged and left for
    its page to report, as without this: it must not keep the whole site from starting."""
    compiled = 0
    for directory in settings.TEMPLATES[0]["DIRS"]:
        for path in sorted(Path(directory).rglob("*.html")):
            name = path.relative_to(directory).as_posix()
            try:
                get_template(name)
            except TemplateSyntaxError as exc:
                logger.error("template %s does not compile: %s", name, exc)
                continue
            compiled += 1
    return compiled
