"""Rubric health of a benchmark: per criterion, and per ability with its criteria pooled,
the experts' unanimity, the judge's disagreement with their majority and how far the
judged hit rate separates systems, from every review round and every judge run, with the
flags of `leaderboard.stats.criterion_health`. The page, the command and the rubric
history all read it from `rubric_health`."""

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import OuterRef, QuerySet, Subquery
from django.utils.translation import gettext as _

from annotation.consensus import has_majority, majority_hit
from annotation.models import Benchmark, Case, Criterion, RubricVersion
from annotation.selectors.review import current_votes_on
from config.version import CONCORD_VERSION
from judging.models import JudgeConfig, JudgeTask, JudgeVersion, Verdict
from judging.models.runs import finished_judge_runs
from leaderboard.evidence.selectors.judge_choice import ASKED, default_judge
from leaderboard.stats.criterion_health import THRESHOLDS, Health, HealthCounts, health, pooled


@dataclass(frozen=True)
class CriterionHealth:
    pk: int
    key: str
    case: str  # its external id
    case_pk: int
    version: int
    position: int
    ability: str
    text: str
    weight: int | None
    catastrophic: bool
    health: Health


@dataclass(frozen=True)
class AbilityHealth:
    ability: str
    criteria: int
    health: Health


@dataclass(frozen=True)
class RubricHealth:
    benchmark: Benchmark
    latest_only: bool
    judge: JudgeVersion | None  # whose verdicts are read (None: there is no judge run)
    judge_picked_by: str  # how (leaderboard.evidence.selectors.judge_choice)
    criteria: list[CriterionHealth]
    abilities: list[AbilityHealth]
    overall: Health  # every criterion pooled, as the ability rows pool theirs

    @property
    def flagged(self) -> list[CriterionHealth]:
        return [row for row in self.criteria if row.health.flags]


def _criteria(benchmark: Benchmark, case: Case | None, latest_only: bool) -> QuerySet[Criterion]:
    criteria = Criterion.objects.filter(rubric_version__case__benchmark=benchmark)
    if case is not None:
        criteria = criteria.filter(rubric_version__case=case)
    if latest_only:
        newest = RubricVersion.objects.filter(case=OuterRef("rubric_version__case")).order_by(
            "-number"
        )
        criteria = criteria.filter(rubric_version__number=Subquery(newest.values("number")[:1]))
    return criteria


def _expert_counts(criteria: QuerySet[Criterion]) -> dict[int, dict[tuple[int, int], list[bool]]]:
    """Per criterion: per (round, response), the experts' current votes. One query."""
    ballots: dict[int, dict[tuple[int, int], list[bool]]] = defaultdict(lambda: defaultdict(list))
    votes = current_votes_on(criteria=criteria.values("pk")).order_by()
    for round_id, response, criterion, hit in votes.values_list(
        "assignment__item__round_id", "assignment__item__response_id", "criterion_id", "hit"
    ):
        ballots[criterion][(round_id, response)].append(hit)
    return ballots


def judge_verdicts(
    benchmark: Benchmark, case: Case | None, wanted: set[int], judge: JudgeVersion | None
) -> dict[int, dict[int, tuple[int, bool]]]:
    """Per criterion of `wanted`: per response, the system and the judge's verdict of the
    newest finished run of the judge version that judged it (a newer run replaces an older
    one's verdict, so a response counts once however many runs there are). One query, reading the
    benchmark's runs task by task: filtering on the criteria instead makes SQLite probe
    every task for every criterion."""
    tasks = JudgeTask.objects.requested().filter(
        finished_judge_runs("run__"),
        run__benchmark=benchmark,
        run__judge_version=judge,
        status=JudgeTask.Status.DONE,
    )
    if case is not None:
        tasks = tasks.filter(case=case)
    verdicts: dict[int, dict[int, tuple[int, bool]]] = defaultdict(dict)
    for response, system, criterion, hit in (
        Verdict.objects.filter(task__in=tasks)
        .order_by("task__run_id")
        .values_list("task__response_id", "task__system_id", "criterion_id", "hit")
    ):
        if criterion in wanted:
            verdicts[criterion][response] = (system, hit)
    return verdicts


def _counts(
    ballots: dict[tuple[int, int], list[bool]], verdicts: dict[int, tuple[int, bool]]
) -> HealthCounts:
    systems: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for system, hit in verdicts.values():
        systems[system][0] += hit
        systems[system][1] += 1
    rated = unanimous = judged = disagreements = 0
    for (_round, response), votes in ballots.items():
        hits = sum(votes)
        if len(votes) >= 2:
            rated += 1
            unanimous += hits in (0, len(votes))
        if not has_majority(len(votes), hits):
            continue
        if response in verdicts:
            judged += 1
            disagreements += verdicts[response][1] != majority_hit(len(votes), hits)
    return HealthCounts(
        rated=rated,
        unanimous=unanimous,
        judged=judged,
        disagreements=disagreements,
        system_hits={system: (hits, total) for system, (hits, total) in systems.items()},
    )


class JudgeNotFound(Exception):
    """No judge of that name has a finished run here; the message says so."""


def health_judge(*, benchmark: Benchmark, judge: str = "") -> tuple[JudgeVersion | None, str]:
    """The judge version whose verdicts rubric health reads: the named judge's current
    version, or the benchmark's default (leaderboard.evidence.selectors.judge_choice)."""
    if not judge:
        return default_judge(benchmark=benchmark)
    config = JudgeConfig.objects.filter(name=judge).select_related("current_version").first()
    if config is None or config.current_version is None:
        raise JudgeNotFound(_("No judge named %(name)s.") % {"name": judge})
    return config.current_version, ASKED


def rubric_health(
    *,
    benchmark: Benchmark,
    case: Case | None = None,
    latest_only: bool = True,
    judge: str = "",
) -> RubricHealth:
    """The health of the criteria of each case's newest rubric version (of every version
    with `latest_only=False`; of one case's with `case`), against the verdicts of one
    judge version: the named judge's, or the benchmark's default. Raises JudgeNotFound for
    an unknown name. A few queries whatever the size."""
    judge_version, picked_by = health_judge(benchmark=benchmark, judge=judge)
    criteria = _criteria(benchmark, case, latest_only)
    rows = list(
        criteria.order_by("rubric_version__case__position", "rubric_version__number", "position")
        .values_list(
            "pk", "key", "rubric_version__case__external_id", "rubric_version__case_id",
            "rubric_version__number",
            "position", "ability__label", "text", "weight", "is_catastrophic",
            "ability__is_catastrophic", "ability__category__position", "ability__position",
        )
    )  # fmt: skip
    ballots = _expert_counts(criteria)
    verdicts = judge_verdicts(benchmark, case, {row[0] for row in rows}, judge_version)
    found: list[CriterionHealth] = []
    by_ability: dict[str, list[tuple[HealthCounts, bool]]] = defaultdict(list)
    ability_order: dict[str, tuple[int, int, str]] = {}
    for (
        pk, key, case_id, case_pk, version, position, ability, text, weight, catastrophic,
        ability_catastrophic, category_position, ability_position,
    ) in rows:  # fmt: skip
        counts = _counts(ballots.get(pk, {}), verdicts.get(pk, {}))
        safety_net = catastrophic or ability_catastrophic
        found.append(
            CriterionHealth(
                pk=pk,
                key=str(key),
                case=case_id,
                case_pk=case_pk,
                version=version,
                position=position,
                ability=ability,
                text=text,
                weight=weight,
                catastrophic=safety_net,
                health=health(counts, catastrophic=safety_net),
            )
        )
        by_ability[ability].append((counts, safety_net))
        ability_order[ability] = (category_position, ability_position, ability)
    abilities = [
        AbilityHealth(
            ability=label,
            criteria=len(by_ability[label]),
            health=health(
                pooled(counts for counts, _ in by_ability[label]),
                catastrophic=all(net for _, net in by_ability[label]),
            ),
        )
        for label in sorted(by_ability, key=ability_order.__getitem__)
    ]
    everything = [pair for pairs in by_ability.values() for pair in pairs]
    overall = health(
        pooled(counts for counts, _ in everything),
        catastrophic=bool(everything) and all(net for _, net in everything),
    )
    return RubricHealth(
        benchmark=benchmark,
        latest_only=latest_only,
        judge=judge_version,
        judge_picked_by=picked_by,
        criteria=found,
        abilities=abilities,
        overall=overall,
    )


def _stat(stat) -> dict:
    return {"value": stat.value, "reason": stat.reason}


def _health_json(found: Health) -> dict:
    counts = found.counts
    return {
        "expert_unanimity": _stat(found.unanimity),
        "rated_units": counts.rated,
        "unanimous_units": counts.unanimous,
        "judge_disagreement": _stat(found.disagreement),
        "judge_disagreement_95": {
            "low": found.disagreement_95.low,
            "high": found.disagreement_95.high,
            "reason": found.disagreement_95.reason,
        },
        "judged_units": counts.judged,
        "disagreeing_units": counts.disagreements,
        "discrimination": _stat(found.discrimination),
        "systems": found.systems,
        "saturation": found.saturation,
        "flags": list(found.flags),
    }


def rubric_health_json(report: RubricHealth) -> dict:
    """The report as the command and exports give it: full precision, reasons as codes."""
    return {
        "benchmark": report.benchmark.slug,
        "produced_by": f"Concord {CONCORD_VERSION}",
        "versions": "latest" if report.latest_only else "all",
        "judge": None
        if report.judge is None
        else {
            "name": report.judge.label,
            "config": report.judge.config.name,
            "number": report.judge.number,
            "picked_by": report.judge_picked_by,
        },
        "thresholds": THRESHOLDS,
        "flagged": len(report.flagged),
        "criteria": [
            {
                "case": row.case,
                "version": row.version,
                "position": row.position,
                "key": row.key,
                "ability": row.ability,
                "weight": row.weight,
                "catastrophic": row.catastrophic,
                "text": row.text,
                **_health_json(row.health),
            }
            for row in report.criteria
        ],
        "abilities": [
            {"ability": row.ability, "criteria": row.criteria, **_health_json(row.health)}
            for row in report.abilities
        ],
        "overall": {"criteria": len(report.criteria), **_health_json(report.overall)},
    }
