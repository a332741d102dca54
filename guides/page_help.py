"""Which section of which guide explains each page: the Help link of every page opens it
there, in the reader's language. The Chinese guides mirror the English ones section by
section (a test keeps them so), so a section found in the English guide is found at the
same place in its translation."""

import re
from functools import lru_cache
from pathlib import Path

from django.urls import reverse

from guides.library import DOCUMENTS, TRANSLATED_SUFFIX

# URL name -> (document, the section's id in the English document). Pages every role shares
# (the benchmark list, say) are left out: their Help opens the reader's own guide.
PAGE_SECTIONS: dict[str, tuple[str, str]] = {
    "review-my-work": ("expert", "your-work-my-review-work"),
    "review-annotate": ("expert", "the-annotation-page"),
    "review-my-submitted": ("expert", "my-submitted-items-and-revising"),
    "import": ("coordinator", "importing"),
    "import-job": ("coordinator", "importing"),
    "rubric-editor": ("coordinator", "the-editor"),
    "rubric-history": ("coordinator", "versions-and-publishing"),
    "review-rounds": ("coordinator", "review-rounds"),
    "review-round-new": ("coordinator", "opening-a-round"),
    "review-round": ("coordinator", "the-round-page"),
    "review-round-close": ("coordinator", "closing-with-confirmation"),
    "review-adjudication": ("coordinator", "adjudication"),
    "review-adjudicate": ("coordinator", "adjudication"),
    "people": ("coordinator", "people"),
    "people-person": ("coordinator", "an-accounts-page"),
    "judge-runs": ("coordinator", "judge-runs"),
    "judge-run-new": ("coordinator", "starting-a-run"),
    "judge-run": ("coordinator", "the-run-page"),
    "judge-config-new": ("coordinator", "configurations"),
    "judge-config": ("coordinator", "configurations"),
    "judge-config-edit": ("coordinator", "configurations"),
    "prompt-upload": ("coordinator", "prompts"),
    "audit-log": ("coordinator", "the-audit-log"),
    "agreement": ("researcher", "the-agreement-report"),
    "gate-policy": ("researcher", "gate"),
    "disagreements": ("researcher", "disagreements-and-the-pdf"),
    "disagreement-case": ("researcher", "disagreements-and-the-pdf"),
    "leaderboard": ("researcher", "leaderboards"),
    "leaderboard-snapshot": ("researcher", "leaderboards"),
    "exports": ("researcher", "exports"),
    "judge-selection": ("researcher", "choosing-a-judge"),
    "judge-panel": ("researcher", "can-this-judge-replace-an-expert"),
    "agreement-methods": ("researcher", "a-methods-paragraph-for-the-paper-methods"),
    "rubric-health": ("researcher", "rubric-health"),
    "review-guidance": ("expert", "worked-examples-and-the-faq"),
    "review-discussion": ("expert", "discussing-an-item-after-the-round-closes"),
    "review-faq": ("coordinator", "faq-worked-examples-and-threads"),
    "review-examples": ("coordinator", "faq-worked-examples-and-threads"),
}

_HEADING_ID = re.compile(r'<h[1-4] id="([^"]+)"')


@lru_cache(maxsize=64)
def _heading_ids(path: Path, modified: float) -> tuple[str, ...]:
    # The Markdown parser loads with the first guide read, not with every page's template tags.
    from annotation.markdown import render_document

    return tuple(_HEADING_ID.findall(str(render_document(path.read_text(encoding="utf-8")))))


def heading_ids(path: Path) -> tuple[str, ...]:
    return _heading_ids(path, path.stat().st_mtime) if path.is_file() else ()


def translated_path(path: Path, language: str) -> Path | None:
    suffix = TRANSLATED_SUFFIX.get(language)
    return path.with_name(path.name.removesuffix(".md") + suffix) if suffix else None


def section_id(document: str, english_id: str, language: str) -> str:
    """The id of the section in the document the reader will see."""
    path = DOCUMENTS[document].path
    translation = translated_path(path, language)
    if translation is None or not translation.is_file():
        return english_id
    english, translated = heading_ids(path), heading_ids(translation)
    if english_id in translated or len(english) != len(translated) or english_id not in english:
        return english_id
    return translated[english.index(english_id)]


def page_help_href(url_name: str | None, language: str) -> str:
    """Where the Help link of a page goes: its section, or the help start page."""
    if url_name not in PAGE_SECTIONS:
        return reverse("help")
    document, english_id = PAGE_SECTIONS[url_name]
    return reverse("help-page", args=[document]) + "#" + section_id(document, english_id, language)
