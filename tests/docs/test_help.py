"""/help/: each role opens its own guide, in the interface's language, rendered safely with
ids on its headings; the statistics and gate rules a page links to have their sections."""

import re
import tomllib
from pathlib import Path

import pytest
from django.urls import get_resolver, reverse

from accounts.roles import SENIOR_EXPERT
from accounts.services import user_create_with_role
from annotation.markdown import render_document
from config.version import CONCORD_VERSION
from guides.library import DOCUMENTS
from guides.page_help import PAGE_SECTIONS, heading_ids, section_id
from leaderboard.report.reading import STATISTICS
from tests.conftest import PASSWORD

ROOT = Path(__file__).resolve().parents[2]
GATE_RULES = ("point", "lower_bound", "sequential")


def _signed_in(client, user, language="en"):
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


@pytest.mark.parametrize(
    ("persona", "guide"),
    [("expert", "expert"), ("coordinator", "coordinator"), ("researcher", "researcher")],
)
@pytest.mark.django_db
def test_help_opens_the_guide_of_the_role(client, request, persona, guide):
    user = request.getfixturevalue(persona)
    response = _signed_in(client, user).get(reverse("help"))
    assert response.status_code == 302
    assert response.url == reverse("help-page", args=[guide])


def test_a_senior_expert_reads_the_expert_guide(client, db):
    senior = user_create_with_role(username="senior", password=PASSWORD, role=SENIOR_EXPERT)
    response = _signed_in(client, senior).get(reverse("help"))
    assert response.url == reverse("help-page", args=["expert"])


def test_a_user_without_a_role_gets_the_list(client, outsider):
    page = _signed_in(client, outsider).get(reverse("help")).content.decode()
    for document in DOCUMENTS.values():
        assert reverse("help-page", args=[document.name]) in page


@pytest.mark.parametrize("guide", ["expert", "coordinator", "researcher"])
def test_each_guide_is_shown_in_the_interface_language(client, expert, guide):
    english = (ROOT / "docs" / "guide" / f"{guide}.md").read_text(encoding="utf-8")
    chinese = (ROOT / "docs" / "guide" / f"{guide}.zh-hans.md").read_text(encoding="utf-8")
    url = reverse("help-page", args=[guide])
    page_en = _signed_in(client, expert).get(url).content.decode()
    page_zh = _signed_in(client, expert, "zh-hans").get(url).content.decode()
    first_heading = lambda text: next(  # noqa: E731
        line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("# ")
    )
    assert first_heading(english) in page_en
    assert first_heading(chinese) in page_zh
    assert first_heading(english) not in page_zh


def test_a_document_without_a_translation_says_so(client, researcher):
    page = _signed_in(client, researcher, "zh-hans").get(reverse("help-page", args=["formats"]))
    assert "此页面只有英文版" in page.content.decode()
    page = _signed_in(client, researcher).get(reverse("help-page", args=["formats"]))
    assert "English only" not in page.content.decode()


def test_links_between_documents_become_help_pages(client, coordinator):
    page = _signed_in(client, coordinator).get(reverse("help-page", args=["judging"]))
    html = page.content.decode()
    assert f'href="{reverse("help-page", args=["statistics"])}#what-validated-means"' in html
    assert ".md" not in "".join(part.split('"')[0] for part in html.split('href="')[1:])


def test_an_unknown_document_is_404(client, coordinator):
    response = _signed_in(client, coordinator).get(reverse("help-page", args=["nothing"]))
    assert response.status_code == 404


def test_every_registered_document_exists():
    for document in DOCUMENTS.values():
        assert document.path.is_file(), document.path


@pytest.mark.parametrize("language", ["", ".zh-hans"])
def test_the_researcher_guide_explains_every_statistic_and_rule(language):
    text = (ROOT / "docs" / "guide" / f"researcher{language}.md").read_text(encoding="utf-8")
    ids = {part.split('"', 1)[0] for part in str(render_document(text)).split(' id="')[1:]}
    wanted = {key for key, _label, _kind in STATISTICS} | set(GATE_RULES)
    assert wanted - ids == set()


def test_the_guides_are_rendered_safely():
    html = str(render_document("## Hi\n\n<script>alert(1)</script> [x](javascript:alert(1))"))
    assert "<script>" not in html
    assert 'href="javascript' not in html
    assert '<h2 id="hi">' in html


def test_the_version_is_the_projects_and_shown(client, researcher):
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["version"] == CONCORD_VERSION
    page = _signed_in(client, researcher).get(reverse("help-page", args=["researcher"]))
    assert f"Concord {CONCORD_VERSION}" in page.content.decode()
    answer = client.get(reverse("api-version"))
    assert answer.json() == {"concord_version": CONCORD_VERSION}
    client.logout()
    assert client.get(reverse("api-version")).status_code in {401, 403}


@pytest.mark.parametrize("guide", ["expert", "coordinator", "researcher"])
def test_the_chinese_guides_mirror_the_english_section_by_section(guide):
    english = heading_ids(ROOT / "docs" / "guide" / f"{guide}.md")
    chinese = heading_ids(ROOT / "docs" / "guide" / f"{guide}.zh-hans.md")
    assert len(english) == len(chinese)
    # Sections named by a key (the statistics, the gate rules) carry the same id in both.
    text = (ROOT / "docs" / "guide" / f"{guide}.md").read_text(encoding="utf-8")
    keys = set(re.findall(r"^#+ .*\(`([a-z][a-z0-9_.]*)`\)\s*$", text, re.MULTILINE))
    assert [(e, c) for e, c in zip(english, chinese, strict=True) if e in keys and e != c] == []


def test_every_page_section_exists_and_every_page_is_a_route():
    names = {p.name for p in get_resolver().url_patterns for p in _flatten(p)}
    for url_name, (document, section) in PAGE_SECTIONS.items():
        assert url_name in names, url_name
        assert section in heading_ids(DOCUMENTS[document].path), (url_name, section)


def _flatten(pattern):
    if hasattr(pattern, "url_patterns"):
        for inner in pattern.url_patterns:
            yield from _flatten(inner)
    else:
        yield pattern


def test_each_page_help_link_opens_its_section_in_the_readers_language(client, coordinator):
    client.force_login(coordinator)
    page = client.get(reverse("review-rounds")).content.decode()
    assert f'href="{reverse("help-page", args=["coordinator"])}#review-rounds"' in page
    client.cookies["django_language"] = "zh-hans"
    page = client.get(reverse("review-rounds")).content.decode()
    chinese = section_id("coordinator", "review-rounds", "zh-hans")
    assert chinese == "专家标注轮次"
    assert f'href="{reverse("help-page", args=["coordinator"])}#{chinese}"' in page
    # A page no guide explains opens the help start page.
    page = client.get(reverse("help-page", args=["formats"])).content.decode()
    assert f'<a href="{reverse("help")}" id="help-link">' in page
