"""Templates link downward only, as modules import: a page of annotation linking to a
leaderboard page would tie the lower app to one above it. The site's frame (the templates at
the top of templates/: base.html and the error pages) links to every app, as config's urls
include them all, and is not checked. A lower page names a place instead (core.places),
which the higher app fills."""

import re
from pathlib import Path

from django.urls import URLResolver, get_resolver

from tests.architecture.test_import_direction import LEVEL

ROOT = Path(__file__).resolve().parents[2]
URL_TAG = re.compile(r"{%\s*url\s+['\"]([\w:-]+)['\"]")


def _url_owners() -> dict[str, str]:
    """URL name -> the app whose urls module defines it."""
    owners: dict[str, str] = {}

    def walk(patterns, app: str | None) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                module = getattr(pattern.urlconf_module, "__name__", "")
                walk(pattern.url_patterns, module.split(".")[0] or app)
            elif pattern.name and app in LEVEL:
                owners.setdefault(pattern.name, app)

    walk(get_resolver().url_patterns, None)
    return owners


def _upward_links(templates: Path, owners: dict[str, str]) -> list[str]:
    found = []
    for path in sorted(templates.rglob("*.html")):
        parts = path.relative_to(templates).parts
        app = parts[0] if len(parts) > 1 else None
        if app not in LEVEL:
            continue
        for name in sorted(set(URL_TAG.findall(path.read_text(encoding="utf-8")))):
            owner = owners.get(name)
            if owner is not None and LEVEL[owner] > LEVEL[app]:
                found.append(f"{path.relative_to(templates)} links to {name} ({owner})")
    return found


def test_every_linked_url_name_has_an_owner():
    owners = _url_owners()
    names = {
        name
        for path in (ROOT / "templates").rglob("*.html")
        for name in URL_TAG.findall(path.read_text(encoding="utf-8"))
    }
    unknown = sorted(name for name in names - {"set_language"} if name not in owners)
    assert not unknown, f"{{% url %}} names no page: {unknown}"


def test_no_template_links_an_app_above_it():
    assert _upward_links(ROOT / "templates", _url_owners()) == []


PLACE_TAG = re.compile(r"{%\s*place_url\s+['\"]([\w.-]+)['\"]")


def test_every_place_a_template_names_is_filled():
    """A place nobody fills renders no link: every place a template names has its page."""
    from core.places import places_filled

    filled = places_filled()
    named = {
        name
        for path in (ROOT / "templates").rglob("*.html")
        for name in PLACE_TAG.findall(path.read_text(encoding="utf-8"))
    }
    assert named and not named - set(filled), sorted(named - set(filled))
    owners = _url_owners()
    assert all(url_name in owners for url_name in filled.values())


def test_the_check_sees_an_upward_link(tmp_path):
    page = tmp_path / "annotation" / "leak.html"
    page.parent.mkdir()
    page.write_text("<a href=\"{% url 'leaderboard' 1 %}\">board</a>")
    owners = {"leaderboard": "leaderboard"}
    assert _upward_links(tmp_path, owners) == [
        "annotation/leak.html links to leaderboard (leaderboard)"
    ]
