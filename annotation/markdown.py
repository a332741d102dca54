"""Markdown written by coordinators (guidelines) as safe HTML, with two well-kept
libraries: markdown-it-py parses CommonMark (with tables and strikethrough) and nh3 (the
Rust ammonia sanitiser) keeps only the tags and attributes listed here. Raw HTML in the
text is not passed through, and links may only go to http, https and mailto addresses."""

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_PARSER = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(
    ["table", "strikethrough"]
)

ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "code",
    "pre", "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"style"}, "td": {"style"}}


def render_markdown(text: str) -> SafeString:
    html = _PARSER.render(text or "")
    cleaned = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
        filter_style_properties={"text-align"},
    )
    # Safe to mark: nh3 kept only the tags, attributes and URL schemes listed above.
    return mark_safe(cleaned)
