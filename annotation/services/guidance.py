"""Writing the FAQ and the worked examples. Each save or delete is one audit event that
keeps the text it replaced, so the guidance experts read at any time can be told later."""

from django.db import transaction

from annotation import audit_actions
from annotation.models import Ability, Benchmark, FaqEntry, WorkedExample
from core.audit.services import audit_record


def _faq_text(entry: FaqEntry) -> dict:
    return {"question": entry.question, "answer": entry.answer}


def _faq_record(entry: FaqEntry) -> dict:
    """The entry as experts read it: what a save replaces or a delete removes is kept whole
    (a published board's evidence may never have seen it otherwise)."""
    return {
        **_faq_text(entry),
        "abilities": sorted(entry.abilities.values_list("label", flat=True)),
        "criteria": list(entry.criterion_keys),
    }


def faq_entry_save(
    *,
    benchmark: Benchmark,
    entry: FaqEntry | None,
    question: str,
    answer: str,
    abilities: list[Ability],
    user,
    criteria: list[str] = (),
) -> FaqEntry:
    """Create (`entry` None) or change an entry of `benchmark`'s FAQ. `criteria` are the
    keys of the criteria it answers (empty: every criterion of its abilities)."""
    with transaction.atomic():
        before = None
        if entry is None:
            entry = FaqEntry(benchmark=benchmark)
        else:
            entry = FaqEntry.objects.select_for_update().get(pk=entry.pk, benchmark=benchmark)
            before = _faq_record(entry)
        entry.question, entry.answer, entry.updated_by = question, answer, user
        entry.criterion_keys = [str(key) for key in criteria]
        entry.save()
        entry.abilities.set(abilities)
        audit_record(
            actor=user,
            action=audit_actions.FAQ_SAVED,
            benchmark=benchmark,
            details={
                "entry": entry.pk,
                **_faq_text(entry),
                "abilities": sorted(a.label for a in abilities),
                "criteria": list(entry.criterion_keys),
                "before": before,
            },
        )
    return entry


def faq_entry_delete(*, entry: FaqEntry, user) -> None:
    with transaction.atomic():
        audit_record(
            actor=user,
            action=audit_actions.FAQ_DELETED,
            benchmark=entry.benchmark,
            details={"entry": entry.pk, **_faq_record(entry)},
        )
        entry.delete()


def _example_text(example: WorkedExample) -> dict:
    return {"ability": example.ability.label, "title": example.title, "body": example.body}


def worked_example_save(
    *,
    benchmark: Benchmark,
    example: WorkedExample | None,
    ability: Ability,
    title: str,
    body: str,
    user,
) -> WorkedExample:
    """Create (`example` None) or change a worked example of `benchmark`."""
    with transaction.atomic():
        before = None
        if example is None:
            example = WorkedExample(benchmark=benchmark)
        else:
            example = (
                WorkedExample.objects.select_for_update()
                .select_related("ability")
                .get(pk=example.pk, benchmark=benchmark)
            )
            before = _example_text(example)
        example.ability, example.title, example.body = ability, title, body
        example.updated_by = user
        example.save()
        audit_record(
            actor=user,
            action=audit_actions.EXAMPLE_SAVED,
            benchmark=benchmark,
            details={"example": example.pk, **_example_text(example), "before": before},
        )
    return example


def worked_example_delete(*, example: WorkedExample, user) -> None:
    with transaction.atomic():
        audit_record(
            actor=user,
            action=audit_actions.EXAMPLE_DELETED,
            benchmark=example.benchmark,
            details={"example": example.pk, **_example_text(example)},
        )
        example.delete()
