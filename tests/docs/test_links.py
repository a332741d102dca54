"""Every link of the README and of docs/ resolves: the file it names exists, and the section
it names is a heading of that file (as the in-app help gives headings their ids)."""

from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt

from annotation.markdown import render_document

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").rglob("*.md")])
_PARSER = MarkdownIt("commonmark").enable(["table"])


def _targets(path: Path) -> list[str]:
    found = []

    def walk(tokens):
        for token in tokens:
            if token.type == "link_open":
                found.append(str(token.attrGet("href")))
            elif token.type == "image":
                found.append(str(token.attrGet("src")))
            if token.children:
                walk(token.children)

    walk(_PARSER.parse(path.read_text(encoding="utf-8")))
    return found


def _heading_ids(path: Path) -> set[str]:
    html = str(render_document(path.read_text(encoding="utf-8")))
    return {part.split('"', 1)[0] for part in html.split(' id="')[1:]}


def broken_links(path: Path) -> list[str]:
    broken = []
    for href in _targets(path):
        parts = urlsplit(href)
        if parts.scheme in {"http", "https", "mailto"}:
            continue  # no network here; outside addresses are not checked
        target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
        if not target.exists():
            broken.append(f"{href}: no such file")
        elif (
            parts.fragment
            and target.suffix == ".md"
            and unquote(parts.fragment) not in _heading_ids(target)
        ):
            broken.append(f"{href}: no such section")
    return broken


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves(path):
    assert broken_links(path) == []


def test_the_check_sees_a_broken_link(tmp_path):
    (tmp_path / "other.md").write_text("# Other\n\n## Kappa (`kappa`)\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[a](other.md#kappa) [b](missing.md) [c](other.md#nowhere) [d](https://example.org)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["missing.md: no such file", "other.md#nowhere: no such section"]


def test_the_readme_is_a_front_door():
    assert len((ROOT / "README.md").read_text(encoding="utf-8")) < 10_000
