"""Import of benchmark question files: new cases, and a new rubric version for a case
whose rubric changed. One transaction: a file with any error writes nothing."""

import uuid
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from django.db import transaction
from django.utils.translation import gettext_noop

from annotation import audit_actions
from annotation.importing.issues import (
    ImportIssue,
    ImportRejected,
    IssueCollector,
    RowInvalid,
    Text,
    shown,
)
from annotation.importing.jsonl import read_json_lines
from annotation.importing.questions import QuestionRow, dialogue_hash, parse_question
from annotation.models import Ability, Benchmark, Case, Category, Criterion, RubricVersion, Scenario
from annotation.selectors.rubrics import latest_rubric_versions
from core.audit.services import audit_record

BATCH_SIZE = 500


@dataclass
class BenchmarkImportSummary:
    cases: int = 0
    criteria: int = 0
    rubric_versions_created: int = 0
    responses: int = 0
    cases_created: int = 0
    cases_updated: int = 0
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class _KnownCase:
    pk: int
    dialogue_hash: str
    difficulty: str
    scenario_id: int | None
    position: int


@dataclass
class _PendingVersion:
    case_id: int
    row: QuestionRow
    number: int
    parent_id: int | None


class _BenchmarkImporter:
    def __init__(
        self,
        *,
        benchmark: Benchmark,
        user,
        difficulty: str | None,
        change_difficulty: bool,
        parse: Callable[..., QuestionRow] = parse_question,
    ) -> None:
        self.benchmark = benchmark
        self.parse = parse
        self.difficulty = difficulty
        self.change_difficulty = change_difficulty
        self.difficulty_changes: list[dict] = []
        # Kept in the log like difficulty: what a board published before read.
        self.scene_changes: list[dict] = []
        self.user = user
        self.summary = BenchmarkImportSummary()
        self.issues = IssueCollector()
        self.seen_ids: dict[str, int] = {}
        # Existing cases are held as small fingerprints, not model instances, so that
        # re-importing a large file does not keep every dialogue in memory.
        self.cases = {
            case.external_id: _KnownCase(
                pk=case.pk,
                dialogue_hash=dialogue_hash(case.dialogue),
                difficulty=case.difficulty,
                scenario_id=case.scenario_id,
                position=case.position,
            )
            for case in Case.objects.filter(benchmark=benchmark).iterator(chunk_size=2000)
        }
        self.latest = latest_rubric_versions(cases=Case.objects.filter(benchmark=benchmark))
        self.scenarios = {(s.primary, s.secondary): s for s in benchmark.scenarios.all()}
        self.abilities = {a.label: a for a in Ability.objects.all()}
        self.new_cases: list[tuple[Case, QuestionRow]] = []
        self.new_versions: list[_PendingVersion] = []
        self.saw_responses = False
        self.next_position = max((c.position for c in self.cases.values()), default=0) + 1

    def run(self, chunks: Iterable[bytes]) -> BenchmarkImportSummary:
        for item in read_json_lines(chunks):
            if isinstance(item, ImportIssue):
                self.issues.add(item.line, item.message, item.field)
                continue
            if isinstance(item.value, dict) and "response" in item.value and not self.saw_responses:
                self.saw_responses = True
                self.summary.warnings.append(
                    f"line {item.number}: rows carry a 'response'; responses are imported "
                    "per system with import_responses, not with the benchmark"
                )
            try:
                row = self.parse(item.value, self.difficulty)
            except RowInvalid as exc:
                self.issues.add(item.number, exc.message, exc.field)
                continue
            self.take(item.number, row)
            if len(self.new_cases) + len(self.new_versions) >= BATCH_SIZE:
                self.flush()
        self.flush()
        self.issues.raise_if_any()
        if not self.summary.cases:
            raise ImportRejected([ImportIssue(0, Text(gettext_noop("the file contains no cases")))])
        return self.summary

    def take(self, line: int, row: QuestionRow) -> None:
        first = self.seen_ids.get(row.question_id)
        if first is not None:
            self.issues.add(
                line,
                Text(
                    gettext_noop("duplicate question_id %(id)s (first on line %(first)d)"),
                    {"id": shown(row.question_id), "first": first},
                ),
                "question_id",
            )
            return
        self.seen_ids[row.question_id] = line
        self.summary.cases += 1
        self.summary.criteria += len(row.rubric)
        for criterion in row.rubric:
            self.ability_for(line, criterion.dimension)
        scenario = self.scenario_for(row)
        case = self.cases.get(row.question_id)
        if case is None:
            case = Case(
                benchmark=self.benchmark,
                external_id=row.question_id,
                position=self.next_position,
                dialogue=row.dialogue,
                difficulty=row.difficulty,
                scenario=scenario,
            )
            self.next_position += 1
            self.new_cases.append((case, row))
            self.summary.cases_created += 1
            return
        self.check_existing(line, case, row, scenario)

    def check_existing(self, line: int, case: "_KnownCase", row: QuestionRow, scenario) -> None:
        if case.dialogue_hash != dialogue_hash(row.dialogue):
            self.issues.add(
                line,
                Text(
                    gettext_noop(
                        "case %(id)s already exists with a different dialogue; responses and "
                        "votes refer to it, so import the changed case under a new question_id"
                    ),
                    {"id": shown(row.question_id)},
                ),
                "dialogue",
            )
            return
        if case.difficulty != row.difficulty and not self.change_difficulty:
            # Difficulty decides every normal and hard score, the decline on hard and the
            # rounds' strata: it changes only when asked for by name.
            self.issues.add(
                line,
                Text(
                    gettext_noop(
                        "case %(id)s is %(old)s, and this file makes it %(new)s; a difficulty "
                        "changes every normal and hard score, so it is changed only when asked "
                        "for: import again with --change-difficulty (or give the cases' own "
                        "difficulty)"
                    ),
                    {"id": shown(row.question_id), "old": case.difficulty, "new": row.difficulty},
                ),
                "difficulty",
            )
            return
        if case.difficulty != row.difficulty:
            self.difficulty_changes.append(
                {"case": row.question_id, "from": case.difficulty, "to": row.difficulty}
            )
        if case.scenario_id != (scenario and scenario.pk):
            self.scene_changes.append(
                {
                    "case": row.question_id,
                    "from": self.scene_of(case.scenario_id),
                    "to": [row.primary_scene, row.secondary_scene],
                }
            )
        if case.difficulty != row.difficulty or case.scenario_id != (scenario and scenario.pk):
            Case.objects.filter(pk=case.pk).update(difficulty=row.difficulty, scenario=scenario)
            self.summary.cases_updated += 1
            self.summary.warnings.append(
                f"line {line}: case {row.question_id!r} difficulty or scenario updated"
            )
        latest = self.latest.get(case.pk)
        if latest is None or latest.content_hash != row.rubric_hash:
            self.new_versions.append(
                _PendingVersion(
                    case_id=case.pk,
                    row=row,
                    number=(latest.number + 1) if latest else 1,
                    parent_id=latest.pk if latest else None,
                )
            )

    def ability_for(self, line: int, label: str) -> Ability:
        ability = self.abilities.get(label)
        if ability is None:
            category, _ = Category.objects.get_or_create(
                code=Category.UNCATEGORISED,
                defaults={"name_en": "Uncategorised", "name_zh": "未分类", "position": 99},
            )
            ability = Ability.objects.create(label=label, name_en=label, category=category)
            self.abilities[label] = ability
            self.summary.warnings.append(
                f"line {line}: ability label {label!r} is not in the taxonomy; "
                "kept under 'uncategorised'"
            )
        return ability

    def scene_of(self, scenario_id: int | None) -> list[str]:
        """[primary, secondary] of a scenario, ["", ""] for none."""
        for key, scenario in self.scenarios.items():
            if scenario.pk == scenario_id:
                return list(key)
        return ["", ""]

    def scenario_for(self, row: QuestionRow) -> Scenario | None:
        key = (row.primary_scene, row.secondary_scene)
        if key == ("", ""):
            return None
        scenario = self.scenarios.get(key)
        if scenario is None:
            scenario = Scenario.objects.create(
                benchmark=self.benchmark, primary=key[0], secondary=key[1]
            )
            self.scenarios[key] = scenario
        return scenario

    def flush(self) -> None:
        if self.issues.count:
            # The transaction will be rolled back; keep validating without writing.
            self.new_cases.clear()
            self.new_versions.clear()
            return
        if self.new_cases:
            Case.objects.bulk_create([case for case, _ in self.new_cases])
            self.new_versions.extend(
                _PendingVersion(case_id=case.pk, row=row, number=1, parent_id=None)
                for case, row in self.new_cases
            )
            self.new_cases.clear()
        if not self.new_versions:
            return
        versions = RubricVersion.objects.bulk_create(
            [
                RubricVersion(
                    case_id=pending.case_id,
                    number=pending.number,
                    parent_id=pending.parent_id,
                    author=self.user,
                    note=gettext_noop("imported"),  # shown translated
                    source=RubricVersion.Source.IMPORT,
                    content_hash=pending.row.rubric_hash,
                )
                for pending in self.new_versions
            ]
        )
        keys = _keys_of_parents([p.parent_id for p in self.new_versions if p.parent_id])
        Criterion.objects.bulk_create(
            [
                Criterion(
                    rubric_version=version,
                    position=position,
                    key=keys.pop((pending.parent_id, criterion.text), None) or uuid.uuid4(),
                    ability=self.abilities[criterion.dimension],
                    weight=criterion.weight,
                    text=criterion.text,
                    is_catastrophic=self.abilities[criterion.dimension].is_catastrophic,
                )
                for version, pending in zip(versions, self.new_versions, strict=True)
                for position, criterion in enumerate(pending.row.rubric, start=1)
            ],
            batch_size=2000,
        )
        self.summary.rubric_versions_created += len(versions)
        self.new_versions.clear()


def _keys_of_parents(parent_ids: list[int]) -> dict[tuple[int, str], uuid.UUID]:
    """Criterion keys of the parent versions by (version, text): a criterion whose text is
    unchanged in a re-imported rubric keeps its identity across versions."""
    if not parent_ids:
        return {}
    return {
        (version_id, text): key
        for version_id, text, key in Criterion.objects.filter(
            rubric_version_id__in=parent_ids
        ).values_list("rubric_version_id", "text", "key")
    }


def benchmark_import(
    *,
    chunks: Iterable[bytes],
    benchmark_slug: str,
    user=None,
    benchmark_name: str = "",
    difficulty: str | None = None,
    change_difficulty: bool = False,
    parse: Callable[..., QuestionRow] = parse_question,
) -> BenchmarkImportSummary:
    """Read a question file into the benchmark (created if new). `difficulty`, if given, is
    that of every case in the file (rows may leave theirs out). A case that exists with
    another difficulty is refused (an error on its line) unless `change_difficulty`: then
    it is changed, and each change is in the audit log. `parse` reads one row of another
    format into a question (HealthBench's: annotation.services.healthbench_import).

    Raises ImportRejected, with every problem located by line and field, and leaves the
    database exactly as it was when the file has any error.
    """
    with transaction.atomic():
        benchmark, _ = Benchmark.objects.get_or_create(
            slug=benchmark_slug, defaults={"name": benchmark_name or benchmark_slug}
        )
        importer = _BenchmarkImporter(
            benchmark=benchmark,
            user=user,
            difficulty=difficulty,
            change_difficulty=change_difficulty,
            parse=parse,
        )
        summary = importer.run(chunks)
        relabelled = {
            key: changes
            for key, changes in (
                ("difficulty_changed", importer.difficulty_changes),
                ("scene_changed", importer.scene_changes),
            )
            if changes
        }
        if relabelled:
            audit_record(
                actor=user,
                action=audit_actions.RUBRIC_IMPORTED,
                benchmark=benchmark,
                details=relabelled,
            )
        if summary.rubric_versions_created:
            audit_record(
                actor=user,
                action=audit_actions.RUBRIC_IMPORTED,
                benchmark=benchmark,
                details={
                    "cases": summary.cases,
                    "cases_created": summary.cases_created,
                    "rubric_versions_created": summary.rubric_versions_created,
                },
            )
        return summary
