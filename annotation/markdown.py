"""Markdown as safe HTML, with two well-kept libraries: markdown-it-py parses CommonMark
(with tables and strikethrough) and nh3 (the Rust ammonia sanitiser) keeps only the tags and
attributes listed here. Raw HTML in the text is not passed through, and links may only go
to http, https and mailto addresses or stay on this site.

Two renderings share these rules: coordinators' guidelines (`render_markdown`) and the
product's own documents served as in-app help (`render_document`), whose headings carry ids
so a page can link to a section."""

import functools
import re
from collections.abc import Callable

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.anchors.index import slugify

_OPTIONS = {"html": False, "linkify": False}
_PARSER = MarkdownIt("commonmark", _OPTIONS).enable(["table", "strikethrough"])

ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "code",
    "pre", "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"style"}, "td": {"style"}}
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")

# A heading that ends with an identifier in parentheses, "Raw agreement (`raw_agreement`)",
# takes that identifier as its id, so the English and Chinese documents share their anchors.
_KEYED_HEADING = re.compile(r"\(([a-z][a-z0-9_.]*)\)\s*$")


def _heading_slug(title: str) -> str:
    keyed = _KEYED_HEADING.search(title)
    return keyed.group(1) if keyed else slugify(title)


_DOCUMENT_PARSER = (
    MarkdownIt("commonmark", _OPTIONS)
    .enable(["table", "strikethrough"])
    .use(anchors_plugin, min_level=1, max_level=4, slug_func=_heading_slug)
)


def _clean(html: str, attributes: dict[str, set[str]]) -> SafeString:
    cleaned = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=attributes,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
        filter_style_properties={"text-align"},
    )
    # Safe to mark: nh3 kept only the tags, attributes and URL schemes listed above.
    return mark_safe(cleaned)


@functools.lru_cache(maxsize=64)
def render_markdown(text: str) -> SafeString:
    """Kept per text: a benchmark's guidelines are shown on every annotation page and change
    rarely, and the same text always renders the same (a changed text is a new key)."""
    return _clean(_PARSER.render(text or ""), ALLOWED_ATTRIBUTES)


def _rewrite_links(tokens: list[Token], rewrite: Callable[[str], str]) -> None:
    for token in tokens:
        if token.type == "link_open":
            token.attrSet("href", rewrite(str(token.attrGet("href") or "")))
        if token.children:
            _rewrite_links(token.children, rewrite)


def render_document(text: str, rewrite_href: Callable[[str], str] | None = None) -> SafeString:
    """A document with ids on its headings; `rewrite_href` maps each link's target (to turn
    links between the Markdown files into links between the pages that show them)."""
    env: dict = {}
    tokens = _DOCUMENT_PARSER.parse(text or "", env)
    if rewrite_href is not None:
        _rewrite_links(tokens, rewrite_href)
    html = _DOCUMENT_PARSER.renderer.render(tokens, _DOCUMENT_PARSER.options, env)
    attributes = {**ALLOWED_ATTRIBUTES, **{tag: {"id"} for tag in _HEADINGS}}
    return _clean(html, attributes)
