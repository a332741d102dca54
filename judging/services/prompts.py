"""Prompt templates a lab brings (its own, or a benchmark's published one): checked,
stored as a new version of their name (or the same version when the words are the same),
and compared with the benchmark's language."""

import json
from pathlib import Path

from django.core.validators import validate_slug
from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.models import Benchmark, Case
from judging.models import PromptTemplate
from judging.prompt_check import (
    ALLOWED,
    PromptInvalid,
    check_placeholders,
    decorated_placeholders,
    text_language,
)

# Cases read to tell a benchmark's language.
LANGUAGE_SAMPLE = 20
LANGUAGE_NAMES = {"zh-hans": gettext_noop("Chinese"), "en": gettext_noop("English")}


def _template_check(name: str, kind: str, system_text: str, user_text: str) -> None:
    try:
        validate_slug(name)
    except Exception:
        raise PromptInvalid(f"the name {name!r} must be letters, digits, - and _ only") from None
    if kind not in PromptTemplate.Kind.values:
        raise PromptInvalid(f"the kind must be one of {', '.join(PromptTemplate.Kind.values)}")
    _refuse_decorated(kind, system_text, user_text)
    check_placeholders(kind, system_text, user_text)


def prompt_template_preview(*, name: str, kind: str, system_text: str, user_text: str):
    """The template `prompt_template_save` would return, checked the same way, without
    writing anything: the stored one with these words, or an unsaved new version."""
    _template_check(name, kind, system_text, user_text)
    newest = PromptTemplate.objects.filter(name=name).order_by("-version").first()
    if newest is not None and (newest.kind, newest.system_text, newest.user_text) == (
        kind,
        system_text,
        user_text,
    ):
        return newest
    return PromptTemplate(
        name=name,
        version=(newest.version + 1) if newest else 1,
        kind=kind,
        language=text_language(system_text + "\n" + user_text) or "en",
        system_text=system_text,
        user_text=user_text,
    )


def prompt_template_save(
    *, name: str, kind: str, system_text: str, user_text: str, user=None
) -> PromptTemplate:
    """The template with these words: the newest version of `name` when it has them, else a
    new version. Raises PromptInvalid naming what is wrong."""
    _template_check(name, kind, system_text, user_text)
    language = text_language(system_text + "\n" + user_text) or "en"
    with transaction.atomic():
        newest = (
            PromptTemplate.objects.select_for_update()
            .filter(name=name)
            .order_by("-version")
            .first()
        )
        if newest is not None and (newest.kind, newest.system_text, newest.user_text) == (
            kind,
            system_text,
            user_text,
        ):
            return newest
        return PromptTemplate.objects.create(
            name=name,
            version=(newest.version + 1) if newest else 1,
            kind=kind,
            language=language,
            system_text=system_text,
            user_text=user_text,
            author=user if getattr(user, "is_authenticated", False) else None,
        )


def _refuse_decorated(kind: str, system_text: str, user_text: str) -> None:
    found = decorated_placeholders(system_text) + decorated_placeholders(user_text)
    if found:
        raise PromptInvalid(
            _(
                "Write each placeholder plainly, with its name only: %(found)s has a format "
                "spec, a conversion or an index. Only these placeholders are allowed: "
                "%(allowed)s."
            )
            % {
                "found": ", ".join(found),
                "allowed": " ".join("{" + name + "}" for name in sorted(ALLOWED[kind])),
            }
        )


def prompt_text_from_upload(filename: str, raw: bytes) -> tuple[str, str]:
    """(system, user) texts of a prompt file: JSON with "system" and "user", or any other
    text file as the user message alone. Raises PromptInvalid naming the file."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PromptInvalid(f"{filename} is not UTF-8 text") from None
    if "\x00" in text:
        raise PromptInvalid(f"{filename} holds a NUL character")
    if not filename.lower().endswith(".json"):
        return "", text
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise PromptInvalid(f"{filename} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("user"), str):
        raise PromptInvalid(f'{filename} must hold {{"system": "...", "user": "..."}}')
    system = data.get("system") or ""
    if not isinstance(system, str):
        raise PromptInvalid(f'{filename}: "system" must be text')
    return system, data["user"]


def prompt_from_file(
    path: str | Path, *, kind: str, name: str = "", save: bool = True
) -> PromptTemplate:
    """A template read from a file (see `prompt_text_from_upload`). Named after the file
    unless `name` is given. Without `save`, nothing is written (`prompt_template_preview`)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise PromptInvalid(f"no such file: {path}") from None
    except OSError as exc:
        raise PromptInvalid(f"{path} could not be read ({exc.strerror or exc})") from None
    system_text, user_text = prompt_text_from_upload(path.name, raw)
    return (prompt_template_save if save else prompt_template_preview)(
        name=name or slugify(path.stem) or "prompt",
        kind=kind,
        system_text=system_text,
        user_text=user_text,
    )


def benchmark_language(benchmark: Benchmark) -> str | None:
    texts = []
    for dialogue in (
        Case.objects.filter(benchmark=benchmark)
        .order_by("position")
        .values_list("dialogue", flat=True)[:LANGUAGE_SAMPLE]
    ):
        texts.extend(str(turn.get("content", "")) for turn in dialogue or [])
    return text_language("\n".join(texts))


def language_warning(*, benchmark: Benchmark, prompt: PromptTemplate | None) -> str | None:
    """A warning when the prompt is written in another language than the benchmark's
    dialogues (a Chinese prompt on an English benchmark, or the reverse)."""
    if prompt is None:
        return None
    theirs = benchmark_language(benchmark)
    ours = text_language(prompt.system_text + "\n" + prompt.user_text)
    if theirs is None or ours is None or theirs == ours:
        return None
    return _(
        "The prompt %(prompt)s is written in %(prompt_language)s, but the dialogues of "
        "%(benchmark)s are in %(benchmark_language)s: a judge may then reason in the wrong "
        "language or misread the criteria."
    ) % {
        "prompt": str(prompt),
        "prompt_language": _(LANGUAGE_NAMES[ours]),
        "benchmark": benchmark.slug,
        "benchmark_language": _(LANGUAGE_NAMES[theirs]),
    }


__all__ = [
    "PromptInvalid",
    "language_warning",
    "prompt_from_file",
    "prompt_template_save",
    "prompt_text_from_upload",
]
