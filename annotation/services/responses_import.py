"""Import of answers files: one response per case for one system."""

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from django.db import transaction
from django.utils.translation import gettext_noop

from annotation.generation_failures import FAILED_GENERATION_PREFIX, is_failed_generation
from annotation.importing.answers import AnswerRow, parse_answer
from annotation.importing.issues import (
    ImportIssue,
    ImportRejected,
    IssueCollector,
    RowInvalid,
    Text,
    shown,
)
from annotation.importing.jsonl import read_json_lines
from annotation.models import Benchmark, Case, Response, System

BATCH_SIZE = 1000


@dataclass
class ResponsesImportSummary:
    responses: int = 0
    responses_created: int = 0
    unchanged: int = 0
    system_created: bool = False
    # Empty, or beginning with "Error" (annotation.generation_failures), new or stored.
    failed_generations: int = 0
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


class BenchmarkNotFound(Exception):
    pass


def _whole_file(msgid: str, **params) -> ImportIssue:
    return ImportIssue(0, Text(msgid, params))


def responses_import(
    *,
    chunks: Iterable[bytes],
    benchmark_slug: str,
    system_name: str,
    system_kind: str = System.Kind.LLM,
) -> ResponsesImportSummary:
    """Read an answers file as the responses of one system (created if new).

    Every question_id must name a case of the benchmark. A response already stored for the
    same case and system must be identical: responses are what votes and verdicts judged,
    so they are never overwritten. Any error rolls the whole file back.
    """
    system_name = system_name.strip()
    if not system_name:
        raise ImportRejected([_whole_file(gettext_noop("the system name must not be empty"))])
    limit = System._meta.get_field("name").max_length
    if len(system_name) > limit:
        message = gettext_noop("the system name is longer than %(limit)d characters")
        raise ImportRejected([_whole_file(message, limit=limit)])
    benchmark = Benchmark.objects.filter(slug=benchmark_slug).first()
    if benchmark is None:
        raise BenchmarkNotFound(f"no benchmark with slug {benchmark_slug!r}")
    summary = ResponsesImportSummary()
    issues = IssueCollector()
    with transaction.atomic():
        system, summary.system_created = System.objects.get_or_create(
            name=system_name, defaults={"kind": system_kind}
        )
        case_ids = dict(Case.objects.filter(benchmark=benchmark).values_list("external_id", "pk"))
        existing = dict(
            Response.objects.filter(system=system, case__benchmark=benchmark).values_list(
                "case_id", "text"
            )
        )
        seen: dict[str, int] = {}
        pending: list[Response] = []

        for item in read_json_lines(chunks):
            if isinstance(item, ImportIssue):
                issues.add(item.line, item.message, item.field)
                continue
            try:
                row: AnswerRow = parse_answer(item.value)
            except RowInvalid as exc:
                issues.add(item.number, exc.message, exc.field)
                continue
            line = item.number
            if row.question_id in seen:
                issues.add(
                    line,
                    Text(
                        gettext_noop("duplicate question_id %(id)s (first on line %(first)d)"),
                        {"id": shown(row.question_id), "first": seen[row.question_id]},
                    ),
                    "question_id",
                )
                continue
            seen[row.question_id] = line
            case_id = case_ids.get(row.question_id)
            if case_id is None:
                issues.add(
                    line,
                    Text(
                        gettext_noop(
                            "unknown question_id %(id)s: benchmark %(slug)s has no such case"
                        ),
                        {"id": shown(row.question_id), "slug": shown(benchmark.slug)},
                    ),
                    "question_id",
                )
                continue
            summary.responses += 1
            failed = is_failed_generation(row.response)
            summary.failed_generations += failed
            if not row.response.strip():
                summary.warnings.append(f"line {line}: the response is empty")
            if case_id in existing:
                if existing[case_id] != row.response:
                    issues.add(
                        line,
                        Text(
                            gettext_noop(
                                "system %(system)s already has a different response to "
                                "%(id)s; stored responses are never overwritten (import the "
                                "new answers as another system)"
                            ),
                            {"system": shown(system.name), "id": shown(row.question_id)},
                        ),
                        "response",
                    )
                else:
                    summary.unchanged += 1
                continue
            if issues.count:
                continue
            pending.append(
                Response(
                    system=system,
                    case_id=case_id,
                    text=row.response,
                    source=Response.Source.IMPORT,
                    failed_generation=failed,
                )
            )
            if len(pending) >= BATCH_SIZE:
                Response.objects.bulk_create(pending)
                summary.responses_created += len(pending)
                pending.clear()
        issues.raise_if_any()
        if not summary.responses:
            raise ImportRejected([_whole_file(gettext_noop("the file contains no responses"))])
        Response.objects.bulk_create(pending)
        summary.responses_created += len(pending)
    if summary.failed_generations:
        summary.warnings.append(
            f"{summary.failed_generations} responses are empty or begin with "
            f"{FAILED_GENERATION_PREFIX!r} (failed generations): they are kept, and left out "
            "of judge runs and review rounds unless asked for"
        )
    return summary
