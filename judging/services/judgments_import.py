"""Import of a HeartBench scored file as one finished judge run of one system's responses.

Each line gives a case's `score_detail` (one 0/1 per criterion of the case's current rubric,
in order: a JSON list, or the text the official scorer writes, "[1, 0, 1]") and optionally
the judge's `score_reason`. The released scripts pad or truncate a
verdict list of the wrong length; here such a line is an error, because pairing verdicts with
the wrong criteria would score the wrong behaviour. One transaction: a file with any error
writes nothing, not even the judge configuration or the run.
"""

import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from annotation.importing.fields import optional_string, require_object, require_string, type_name
from annotation.importing.issues import (
    ImportIssue,
    ImportRejected,
    IssueCollector,
    RowInvalid,
    Text,
    shown,
)
from annotation.importing.jsonl import read_json_lines
from annotation.models import Benchmark, Case, Criterion, Response, System
from annotation.selectors.rubrics import latest_rubric_versions, latest_version_id_subquery
from annotation.services.responses_import import BenchmarkNotFound
from judging.models import JudgeRun, JudgeTask, Verdict
from judging.services.judge_versions import judge_version_imported
from judging.services.runs import config_snapshot

BATCH_SIZE = 500

__all__ = [
    "BenchmarkNotFound",
    "JudgmentRow",
    "JudgmentsImportSummary",
    "SystemNotFound",
    "judgments_import",
    "parse_judgment",
]


class SystemNotFound(Exception):
    pass


@dataclass
class JudgmentsImportSummary:
    run: int | None = None
    tasks: int = 0
    verdicts: int = 0
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class JudgmentRow:
    question_id: str
    hits: tuple[bool, ...]
    reason: str
    # Formats that name each criterion and explain each verdict (HealthBench's grader
    # output): the text expected at each position (None: not given), and the reasons.
    criterion_texts: tuple[str | None, ...] = ()
    explanations: tuple[str, ...] = ()


def _verdict(value: Any, field_name: str) -> bool:
    # bool before int: True is an int in Python, and 1.0 or "1" are not verdicts.
    if isinstance(value, bool):
        return value
    if type(value) is int and value in (0, 1):
        return value == 1
    shown = value if isinstance(value, int | float) else type_name(value)
    raise RowInvalid(field_name, f"a verdict must be 0, 1, true or false, got {shown}")


# The official scorer's `str()` of a Python list of 0/1, e.g. "[1, 0, 1]": read as text by
# this pattern, never evaluated.
_LISTED = re.compile(r"\s*\[\s*(?:[01]\s*(?:,\s*[01]\s*)*)?\]\s*")


def _listed(text: str) -> list[int]:
    if not _LISTED.fullmatch(text):
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise RowInvalid(
            "score_detail",
            "expected a list of 0/1 (or the official scorer's text of one, such as "
            f'"[1, 0, 1]"), got {shown!r}',
        )
    return [int(digit) for digit in re.findall(r"[01]", text)]


def parse_judgment(value: Any) -> JudgmentRow:
    row = require_object(value)
    question_id = require_string(row, "question_id").strip()
    if "score_detail" not in row:
        raise RowInvalid("score_detail", "missing")
    detail = row["score_detail"]
    if isinstance(detail, str):
        detail = _listed(detail)
    if not isinstance(detail, list):
        raise RowInvalid("score_detail", f"expected a list, got {type_name(detail)}")
    hits = tuple(_verdict(item, f"score_detail[{i}]") for i, item in enumerate(detail))
    return JudgmentRow(
        question_id=question_id, hits=hits, reason=optional_string(row, "score_reason")
    )


@dataclass
class _Pending:
    task: JudgeTask
    criteria: list[int]
    hits: tuple[bool, ...]
    explanations: tuple[str, ...] = ()


class _JudgmentsImporter:
    def __init__(
        self,
        *,
        benchmark: Benchmark,
        system: System,
        run: JudgeRun,
        parse: Callable[[Any], JudgmentRow] = parse_judgment,
    ) -> None:
        self.parse = parse
        self.texts: dict[int, str] | None = None
        self.benchmark = benchmark
        self.system = system
        self.run_obj = run
        self.summary = JudgmentsImportSummary(run=run.pk)
        self.issues = IssueCollector()
        self.seen: dict[str, int] = {}
        self.pending: list[_Pending] = []
        cases = Case.objects.filter(benchmark=benchmark)
        self.case_ids = dict(cases.values_list("external_id", "pk"))
        self.versions = {
            case_id: version.pk for case_id, version in latest_rubric_versions(cases=cases).items()
        }
        self.responses = dict(
            Response.objects.filter(system=system, case__benchmark=benchmark).values_list(
                "case_id", "pk"
            )
        )
        # Criterion ids of every current version, in rubric order: the verdicts' targets.
        self.criteria: dict[int, list[int]] = {}
        for version_id, pk in (
            Criterion.objects.filter(
                rubric_version__case__benchmark=benchmark,
                rubric_version_id=latest_version_id_subquery("rubric_version__case"),
            )
            .order_by("rubric_version_id", "position")
            .values_list("rubric_version_id", "pk")
            .iterator(chunk_size=5000)
        ):
            self.criteria.setdefault(version_id, []).append(pk)

    def run(self, chunks: Iterable[bytes]) -> JudgmentsImportSummary:
        for item in read_json_lines(chunks):
            if isinstance(item, ImportIssue):
                self.issues.add(item.line, item.message, item.field)
                continue
            try:
                row = self.parse(item.value)
            except RowInvalid as exc:
                self.issues.add(item.number, exc.message, exc.field)
                continue
            self.take(item.number, row)
            if len(self.pending) >= BATCH_SIZE:
                self.flush()
        self.flush()
        self.issues.raise_if_any()
        if not self.summary.tasks:
            raise ImportRejected([ImportIssue(0, "the file contains no judgments")])
        missing = len(self.responses) - self.summary.tasks
        if missing:
            self.summary.warnings.append(
                f"{missing} of the {len(self.responses)} responses of system "
                f"{self.system.name!r} have no judgment in the file; they are not in this run"
            )
        return self.summary

    def take(self, line: int, row: JudgmentRow) -> None:
        qid = row.question_id
        if qid in self.seen:
            first = self.seen[qid]
            message = f"duplicate question_id {qid!r} (first on line {first})"
            self.issues.add(line, message, "question_id")
            return
        self.seen[qid] = line
        case_id = self.case_ids.get(qid)
        if case_id is None:
            self.issues.add(
                line,
                f"unknown question_id {qid!r}: benchmark {self.benchmark.slug!r} has no such case",
                "question_id",
            )
            return
        response_id = self.responses.get(case_id)
        if response_id is None:
            self.issues.add(
                line,
                f"system {self.system.name!r} has no response to {qid!r}; import its answers "
                "with import_responses first",
                "question_id",
            )
            return
        version_id = self.versions.get(case_id)
        criteria = self.criteria.get(version_id, []) if version_id else []
        if len(row.hits) != len(criteria):
            self.issues.add(
                line,
                f"{len(row.hits)} verdicts for {len(criteria)} criteria; not padded or truncated",
                "rubric_items" if row.criterion_texts else "score_detail",
            )
            return
        if row.criterion_texts and not self.texts_match(line, criteria, row.criterion_texts):
            return
        self.summary.tasks += 1
        self.summary.verdicts += len(criteria)
        if self.issues.count:
            return  # the transaction will be rolled back; keep validating without writing
        task = JudgeTask(
            run=self.run_obj,
            case_id=case_id,
            system=self.system,
            response_id=response_id,
            rubric_version_id=version_id,
            status=JudgeTask.Status.DONE,
            reasoning=row.reason,
            finished=timezone.now(),
        )
        self.pending.append(
            _Pending(task=task, criteria=criteria, hits=row.hits, explanations=row.explanations)
        )

    def texts_match(self, line: int, criteria: list[int], texts: tuple[str | None, ...]) -> bool:
        """Whether each criterion text the row gives is the text at its position."""
        if self.texts is None:
            self.texts = dict(
                Criterion.objects.filter(rubric_version_id__in=self.versions.values()).values_list(
                    "pk", "text"
                )
            )
        for index, (criterion_id, text) in enumerate(zip(criteria, texts, strict=True)):
            if text is not None and text.strip() != self.texts[criterion_id].strip():
                self.issues.add(
                    line,
                    Text(
                        gettext_noop(
                            "criterion %(position)d reads %(given)s here but %(stored)s in the "
                            "case's current rubric; verdicts are not paired with other criteria"
                        ),
                        {
                            "position": index + 1,
                            "given": shown(text),
                            "stored": shown(self.texts[criterion_id]),
                        },
                    ),
                    f"rubric_items[{index}].criterion",
                )
                return False
        return True

    def flush(self) -> None:
        if self.issues.count:
            self.pending.clear()
            return
        if not self.pending:
            return
        tasks = JudgeTask.objects.bulk_create([p.task for p in self.pending])
        Verdict.objects.bulk_create(
            [
                Verdict(
                    task=task,
                    criterion_id=criterion_id,
                    hit=hit,
                    reasoning=pending.explanations[index] if pending.explanations else "",
                )
                for task, pending in zip(tasks, self.pending, strict=True)
                for index, (criterion_id, hit) in enumerate(
                    zip(pending.criteria, pending.hits, strict=True)
                )
            ],
            batch_size=2000,
        )
        self.pending.clear()


def judgments_import(
    *,
    chunks: Iterable[bytes],
    benchmark_slug: str,
    system_name: str,
    judge_name: str,
    parse: Callable[[Any], JudgmentRow] = parse_judgment,
) -> JudgmentsImportSummary:
    """Read a scored file as one finished, imported judge run of `system_name`'s responses.

    The judge `judge_name` is a configuration with one imported version, made if new (it
    only names who judged; it never calls anything), so its runs form one leaderboard and
    share its gate evaluations. Raises BenchmarkNotFound or SystemNotFound before reading, and
    ImportRejected, with every problem located by line and field, leaving the database
    exactly as it was, when the file has any error. `parse` reads one row of another format
    (HealthBench's grader output: judging.services.healthbench_judgments).
    """
    judge_name = judge_name.strip()
    if not judge_name:
        raise ImportRejected([ImportIssue(0, "the judge name must not be empty")])
    benchmark = Benchmark.objects.filter(slug=benchmark_slug).first()
    if benchmark is None:
        raise BenchmarkNotFound(f"no benchmark with slug {benchmark_slug!r}")
    system = System.objects.filter(name=system_name.strip()).first()
    if system is None:
        raise SystemNotFound(
            f"no system named {system_name!r}; import its answers with import_responses first"
        )
    with transaction.atomic():
        version = judge_version_imported(name=judge_name)
        run = JudgeRun.objects.create(
            benchmark=benchmark,
            judge_version=version,
            settings_snapshot={**config_snapshot(version), "imported": True},
            source=JudgeRun.Source.IMPORTED,
            status=JudgeRun.Status.FINISHED,
            finished=timezone.now(),
        )
        run.systems.set([system])
        return _JudgmentsImporter(benchmark=benchmark, system=system, run=run, parse=parse).run(
            chunks
        )
