"""The product's documents served as in-app help: which exist, which one each role reads
first, which file holds a document in the reader's language, and how links between the
Markdown files become links between help pages."""

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER, SENIOR_EXPERT

DOCS = Path(settings.BASE_DIR) / "docs"
TRANSLATED_SUFFIX = {"zh-hans": ".zh-hans.md"}


@dataclass(frozen=True)
class Document:
    name: str
    path: Path  # the English file; a translation sits beside it
    title: object  # a lazy translation
    is_guide: bool


DOCUMENTS = {
    doc.name: doc
    for doc in (
        Document("expert", DOCS / "guide" / "expert.md", _("Expert guide"), True),
        Document("coordinator", DOCS / "guide" / "coordinator.md", _("Coordinator guide"), True),
        Document("researcher", DOCS / "guide" / "researcher.md", _("Researcher guide"), True),
        Document(
            "statistics", DOCS / "statistics.md", _("Agreement, the gate and leaderboards"), False
        ),
        Document("review", DOCS / "review.md", _("Rubrics, blind review and people"), False),
        Document("judging", DOCS / "judging.md", _("Judge runs"), False),
        Document("formats", DOCS / "formats.md", _("File formats"), False),
        Document("api", DOCS / "api.md", _("The API"), False),
        Document("deployment", DOCS / "deployment.md", _("Deployment"), False),
        Document("performance", DOCS / "performance.md", _("Performance"), False),
        Document("architecture", DOCS / "architecture.md", _("Architecture"), False),
        Document("security", DOCS / "security.md", _("Security"), False),
        Document("development", DOCS / "development.md", _("Development"), False),
    )
}

# The guide a role opens first: the most demanding role a person holds decides.
_ROLE_GUIDES = ((COORDINATOR, "coordinator"), (RESEARCHER, "researcher"),
                (SENIOR_EXPERT, "expert"), (EXPERT, "expert"))  # fmt: skip


def guide_for_roles(role_names: set[str]) -> str | None:
    return next((guide for role, guide in _ROLE_GUIDES if role in role_names), None)


@dataclass(frozen=True)
class Text:
    markdown: str
    translated: bool  # False when the reader's language has no version and English is shown


def document_text(document: Document, language: str) -> Text:
    suffix = TRANSLATED_SUFFIX.get(language)
    if suffix:
        translation = document.path.with_name(document.path.name.removesuffix(".md") + suffix)
        if translation.is_file():
            return Text(translation.read_text(encoding="utf-8"), True)
    return Text(document.path.read_text(encoding="utf-8"), suffix is None)


def _document_at(target: Path) -> Document | None:
    english = target.with_name(target.name.replace(".zh-hans.md", ".md"))
    return next((d for d in DOCUMENTS.values() if d.path.resolve() == english.resolve()), None)


def help_href(document: Document, href: str) -> str:
    """A link of `document`'s Markdown as a link between help pages: relative links to
    another served document become that page (anchor kept); other links are left as they
    are."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path.endswith(".md"):
        return href
    target = _document_at(document.path.parent / parts.path)
    if target is None:
        return href
    anchor = f"#{parts.fragment}" if parts.fragment else ""
    return reverse("help-page", args=[target.name]) + anchor
