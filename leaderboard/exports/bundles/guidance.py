"""What the experts read while they voted: every version of the benchmark's guidelines, FAQ
entries and worked examples that was current at some moment between a bundled round's
opening and its evaluation. Versions are rebuilt from the audit log, which keeps every
saved text and the text each save replaced; a text the log never saw by the publication
(written before it recorded guidance) is given as the first later save or delete found it,
else as it stands, marked unrecorded. Nothing recorded after the publication shows."""

from datetime import datetime

from annotation import audit_actions
from annotation.models import FaqEntry, Guideline, WorkedExample
from core.models import AuditEvent
from leaderboard.exports.bundles import layout

GUIDELINE, FAQ, EXAMPLE = "guideline", "faq", "example"
_ACTIONS = {
    audit_actions.GUIDELINES_SAVED: (GUIDELINE, True),
    audit_actions.FAQ_SAVED: (FAQ, True),
    audit_actions.FAQ_DELETED: (FAQ, False),
    audit_actions.EXAMPLE_SAVED: (EXAMPLE, True),
    audit_actions.EXAMPLE_DELETED: (EXAMPLE, False),
}


def _document(kind: str, details: dict) -> int | None:
    return {GUIDELINE: None, FAQ: details.get("entry"), EXAMPLE: details.get("example")}[kind]


def _content(kind: str, details: dict) -> dict:
    if kind == GUIDELINE:
        return {"text": details.get("to", "")}
    if kind == FAQ:
        return {
            "question": details.get("question", ""),
            "answer": details.get("answer", ""),
            "abilities": details.get("abilities", []),
            "criteria": details.get("criteria", []),
        }
    return {key: details.get(key, "") for key in ("ability", "title", "body")}


def _replaced(kind: str, details: dict) -> dict | None:
    """The text the first recorded save replaced, when there was one."""
    if kind == GUIDELINE:
        return {"text": details["from"]} if details.get("from") else None
    return details.get("before") or None


def _events(benchmark):
    return AuditEvent.objects.filter(benchmark=benchmark, action__in=list(_ACTIONS)).order_by(
        "created", "pk"
    )


def _history(benchmark, published) -> dict[tuple[str, int | None], list[tuple]]:
    """Per document: (from, content or None when deleted) in the order they happened, up
    to `published`."""
    history: dict[tuple[str, int | None], list[tuple]] = {}
    for action, details, created in (
        _events(benchmark)
        .filter(created__lte=published)
        .values_list("action", "details", "created")
    ):
        kind, saved = _ACTIONS[action]
        key = (kind, _document(kind, details))
        steps = history.setdefault(key, [])
        if not steps and saved and _replaced(kind, details) is not None:
            steps.append((None, _replaced(kind, details)))
        steps.append((created, _content(kind, details) if saved else None))
    return history


def _found_later(benchmark, history: dict, published) -> dict[tuple[str, int | None], dict]:
    """The texts no audit event recorded by `published` that a later save or delete found
    standing (and kept)."""
    found: dict[tuple[str, int | None], dict] = {}
    seen = set(history)
    for action, details in (
        _events(benchmark).filter(created__gt=published).values_list("action", "details")
    ):
        kind, saved = _ACTIONS[action]
        key = (kind, _document(kind, details))
        if key in seen:
            continue
        seen.add(key)
        content = _replaced(kind, details) if saved else _content(kind, details)
        if content is not None:
            found[key] = content
    return found


def _unrecorded(benchmark, history: dict, published) -> dict[tuple[str, int | None], dict]:
    """The texts no audit event recorded by `published`, standing then: as a later change
    found them, else as they stand, unchanged since before `published`."""
    found = _found_later(benchmark, history, published)
    history = {**history, **found}
    guideline = Guideline.objects.filter(benchmark=benchmark, updated__lte=published).first()
    if guideline is not None and (GUIDELINE, None) not in history:
        found[(GUIDELINE, None)] = {"text": guideline.text}
    entries = FaqEntry.objects.filter(benchmark=benchmark, updated__lte=published)
    for entry in entries.prefetch_related("abilities"):
        if (FAQ, entry.pk) not in history:
            found[(FAQ, entry.pk)] = {
                "question": entry.question,
                "answer": entry.answer,
                "abilities": sorted(a.label for a in entry.abilities.all()),
                "criteria": list(entry.criterion_keys),
            }
    examples = WorkedExample.objects.filter(benchmark=benchmark, updated__lte=published)
    for example in examples.select_related("ability"):
        if (EXAMPLE, example.pk) not in history:
            found[(EXAMPLE, example.pk)] = {
                "ability": example.ability.label,
                "title": example.title,
                "body": example.body,
            }
    return found


def version_id(kind: str, document: int | None, number: int) -> str:
    return f"{kind}@{number}" if document is None else f"{kind}:{document}@{number}"


def _current_during(start, end, windows) -> bool:
    return any(
        (start is None or start <= w_end) and (end is None or end > w_start)
        for w_start, w_end in windows
    )


def guidance_record(
    benchmark, windows: dict[int, tuple[datetime, datetime]], published: datetime
) -> dict:
    """The guidance versions current while the experts voted: `windows` gives, per bundled
    evaluation, the round's opening and the moment the evaluation read the votes. Nothing
    after `published` shows (a version still current then has no end), so the same board
    always gives the same record."""
    spans = list(windows.values())
    history = _history(benchmark, published)
    documents = []
    for (kind, document), steps in sorted(history.items(), key=lambda i: (i[0][0], i[0][1] or 0)):
        versions = []
        number = 0 if steps[0][0] is None else 1
        for n, (start, content) in enumerate(steps):
            if content is None:
                continue
            end = steps[n + 1][0] if n + 1 < len(steps) else None
            end = end if end is not None and end <= published else None
            if _current_during(start, end, spans):
                versions.append(
                    {
                        "id": version_id(kind, document, number),
                        "version": number,
                        "from": start.isoformat() if start else None,
                        "until": end.isoformat() if end else None,
                        "content": content,
                        "sha256": layout.canonical_sha256(content),
                    }
                )
            number += 1
        if versions:
            documents.append({"kind": kind, "document": document, "versions": versions})
    for (kind, document), content in sorted(
        _unrecorded(benchmark, history, published).items(), key=lambda i: (i[0][0], i[0][1] or 0)
    ):
        documents.append(
            {
                "kind": kind,
                "document": document,
                "unrecorded": True,
                "versions": [
                    {
                        "id": version_id(kind, document, 0),
                        "version": 0,
                        "from": None,
                        "until": None,
                        "content": content,
                        "sha256": layout.canonical_sha256(content),
                    }
                ],
            }
        )
    return {
        "windows": [
            {"evaluation": pk, "from": start.isoformat(), "until": end.isoformat()}
            for pk, (start, end) in sorted(windows.items())
        ],
        "documents": documents,
    }


def guidance_digests(record: dict) -> dict[str, str]:
    """Each version's id and SHA-256, for the manifest."""
    return {
        version["id"]: version["sha256"]
        for document in record["documents"]
        for version in document["versions"]
    }
