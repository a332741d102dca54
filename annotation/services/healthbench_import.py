"""Import of a HealthBench-format file (annotation/importing/healthbench.py) as a benchmark.

The examples become cases through the same importer as HeartBench's questions (one
transaction; a file with any error writes nothing). The axes are abilities of a HealthBench
category, named in both languages. A physician's ideal completion becomes the response of a
human respondent named after its group ("HealthBench ideal completion (Group 1)"), so that it
can be judged and reviewed like any system's.
"""

from collections.abc import Iterable
from typing import Any

from django.db import transaction

from annotation.importing.healthbench import AXES, IdealCompletion, parse_healthbench
from annotation.importing.issues import RowInvalid
from annotation.importing.issues import _ as _
from annotation.importing.questions import QuestionRow
from annotation.models import Ability, Case, Category, Response, System
from annotation.services.benchmark_import import BenchmarkImportSummary, benchmark_import

CATEGORY_CODE = "healthbench"
IDEAL_SYSTEM = "HealthBench ideal completion ({group})"


def ideal_system_name(group: str) -> str:
    return IDEAL_SYSTEM.format(group=group)[: System._meta.get_field("name").max_length]


def healthbench_taxonomy_ensure() -> None:
    """The HealthBench category and its five axes (never changes an existing ability)."""
    category, _ = Category.objects.get_or_create(
        code=CATEGORY_CODE,
        defaults={"name_en": "HealthBench axes", "name_zh": "HealthBench 维度", "position": 50},
    )
    for position, (label, name_en, name_zh) in enumerate(AXES, start=1):
        Ability.objects.get_or_create(
            label=label,
            defaults={
                "category": category,
                "name_en": name_en,
                "name_zh": name_zh,
                "position": 100 + position,
            },
        )


class _Reader:
    """The row reader given to the benchmark importer; keeps what a question has no room
    for (the ideal completions, whether criterion tags were left out)."""

    def __init__(self, benchmark_slug: str) -> None:
        # Ideal completions already imported, by (system name, example id).
        self.known = {
            (name, question_id): text
            for name, question_id, text in Response.objects.filter(
                case__benchmark__slug=benchmark_slug,
                system__name__startswith=IDEAL_SYSTEM.split("(")[0],
            ).values_list("system__name", "case__external_id", "text")
        }
        self.ideal: dict[str, IdealCompletion] = {}
        self.other_criterion_tags = False
        self.references = 0

    def __call__(self, value: Any, file_difficulty: str | None) -> QuestionRow:
        row = parse_healthbench(value, file_difficulty)
        question_id = row.question.question_id
        if row.ideal is not None:
            known = self.known.get((ideal_system_name(row.ideal.group), question_id))
            if known is not None and known != row.ideal.text:
                raise RowInvalid(
                    "ideal_completions_data.ideal_completion",
                    _(
                        "differs from the ideal completion imported before; votes and "
                        "verdicts refer to that one, so it is not replaced"
                    ),
                )
        if row.ideal is not None and question_id not in self.ideal:
            self.ideal[question_id] = row.ideal
            self.references += row.ideal.references
        self.other_criterion_tags = self.other_criterion_tags or row.other_criterion_tags
        return row.question


def _ideal_responses(*, benchmark_slug: str, reader: _Reader) -> int:
    """Create the ideal completions not imported before; returns how many."""
    cases = dict(
        Case.objects.filter(
            benchmark__slug=benchmark_slug, external_id__in=reader.ideal
        ).values_list("external_id", "pk")
    )
    systems: dict[str, System] = {}
    new = []
    for question_id, completion in reader.ideal.items():
        name = ideal_system_name(completion.group)
        if (name, question_id) in reader.known:
            continue
        if name not in systems:
            systems[name], _created = System.objects.get_or_create(
                name=name, defaults={"kind": System.Kind.HUMAN}
            )
        new.append(
            Response(
                system=systems[name],
                case_id=cases[question_id],
                text=completion.text,
                source=Response.Source.IMPORT,
            )
        )
    Response.objects.bulk_create(new, batch_size=500)
    return len(new)


def healthbench_import(
    *,
    chunks: Iterable[bytes],
    benchmark_slug: str,
    user=None,
    benchmark_name: str = "",
    difficulty: str | None = None,
    change_difficulty: bool = False,
) -> BenchmarkImportSummary:
    """Read a HealthBench-format file into the benchmark (created if new); `difficulty` is
    that of every example (HealthBench's hard subset is a file of its own), else normal.

    Raises ImportRejected, with every problem located by line and field, and leaves the
    database exactly as it was when the file has any error.
    """
    reader = _Reader(benchmark_slug)
    with transaction.atomic():
        healthbench_taxonomy_ensure()
        summary = benchmark_import(
            chunks=chunks,
            benchmark_slug=benchmark_slug,
            user=user,
            benchmark_name=benchmark_name,
            difficulty=difficulty,
            change_difficulty=change_difficulty,
            parse=reader,
        )
        summary.responses += _ideal_responses(benchmark_slug=benchmark_slug, reader=reader)
    if reader.other_criterion_tags:
        summary.warnings.append(
            "criterion tags other than axis:* (level:*, cluster:*) are not kept; "
            "each criterion's axis is its ability"
        )
    if reader.references:
        summary.warnings.append(
            f"{reader.references} reference completions shown to physicians "
            "(ideal_completions_ref_completions) are not imported"
        )
    return summary
