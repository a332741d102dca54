"""The raw tables: every vote, every verdict, every case score, one streamed query each."""

from collections.abc import Iterator

from annotation.models import Ability, Assignment, Criterion, ReviewRound, Vote
from judging.ensemble_vote import UnitVotes
from judging.models import JudgeRun, JudgeTask, MemberVerdict
from judging.scoring import CaseVerdicts, Profile, ScoredCriterion, score_case
from judging.selectors.ensemble import unit_votes
from leaderboard.exports.values import CHUNK_SIZE, flag, rater_name, when
from leaderboard.report.selectors.agreement import rater_pseudonyms


def votes_rows(*, round_: ReviewRound) -> Iterator[list]:
    """Every vote ever cast in the round, every revision, with whether it is the rater's
    current submitted one. One streamed query (plus the pseudonyms)."""
    benchmark = round_.benchmark.slug
    pseudonym = rater_pseudonyms(round_=round_)
    rows = (
        Vote.objects.filter(assignment__item__round=round_)
        .order_by(
            "assignment__item_id", "criterion__position", "assignment__expert_id", "revision", "pk"
        )
        .values_list(
            "assignment__item__response__case__external_id",
            "assignment__item__response__system__name",
            "assignment__item__code",
            "criterion__position",
            "criterion__key",
            "assignment__expert_id",
            "assignment__status",
            "assignment__revision",
            "revision",
            "hit",
            "note",
            "assignment__active_seconds",
            "assignment__submitted",
            "created",
        )
        .iterator(chunk_size=CHUNK_SIZE)
    )
    for (
        question_id,
        system,
        code,
        position,
        key,
        expert_id,
        status,
        current_revision,
        revision,
        hit,
        note,
        seconds,
        submitted,
        created,
    ) in rows:
        is_current = status == Assignment.Status.SUBMITTED and revision == current_revision
        yield [
            benchmark,
            round_.name,
            question_id,
            system,
            code,
            position,
            str(key),
            rater_name(pseudonym, expert_id),
            status,
            revision,
            int(is_current),
            int(hit),
            note,
            seconds,
            when(submitted),
            when(created),
        ]


def verdict_rows(*, run: JudgeRun) -> Iterator[list]:
    """One row per verdict of the run; a task without verdicts (failed, pending, ...) has
    one row with empty verdict fields. One streamed query (a left join of tasks and
    verdicts)."""
    benchmark = run.benchmark.slug
    votes = unit_votes(run=run)
    rows = (
        JudgeTask.objects.requested()
        .filter(run=run)
        .order_by("pk", "verdicts__criterion__position", "verdicts__pk")
        .values_list(
            "pk",
            "verdicts__criterion_id",
            "case__external_id",
            "case__difficulty",
            "system__name",
            "rubric_version__number",
            "status",
            "attempts",
            "prompt_tokens",
            "completion_tokens",
            "reasoning",
            "last_error",
            "verdicts__criterion__position",
            "verdicts__criterion__key",
            "verdicts__criterion__ability__label",
            "verdicts__criterion__ability__category__name_en",
            "verdicts__criterion__weight",
            "verdicts__criterion__is_catastrophic",
            "verdicts__hit",
            "verdicts__reasoning",
        )
        .iterator(chunk_size=CHUNK_SIZE)
    )
    for (
        task_id,
        criterion_id,
        question_id,
        difficulty,
        system,
        version,
        status,
        attempts,
        prompt_tokens,
        completion_tokens,
        task_reasoning,
        last_error,
        position,
        key,
        ability,
        category,
        weight,
        catastrophic,
        hit,
        reasoning,
    ) in rows:
        # Missing values are None (empty in CSV, null in JSON Lines), never a guessed 0.
        yield [
            benchmark,
            run.pk,
            question_id,
            difficulty,
            system,
            version,
            status,
            attempts,
            prompt_tokens,
            completion_tokens,
            task_reasoning,
            last_error,
            position,
            None if key is None else str(key),
            ability,
            category,
            weight,
            flag(catastrophic),
            flag(hit),
            reasoning,
            *_members(votes.get((task_id, criterion_id))),
        ]
    yield from _undecided_rows(run, votes)


def _undecided_rows(run: JudgeRun, votes: dict) -> Iterator[list]:
    """An ensemble's units without a majority of its members have no verdict: each gets a
    row with an empty verdict and its votes, after the verdicts, so none is left out."""
    undecided = {key for key, unit in votes.items() if unit.verdict is None}
    if not undecided:
        return
    rows = (
        MemberVerdict.objects.filter(task__run=run, task_id__in={task for task, _ in undecided})
        .order_by("task_id", "criterion__position")
        .distinct()
        .values_list(
            "task_id",
            "criterion_id",
            "task__case__external_id",
            "task__case__difficulty",
            "task__system__name",
            "task__rubric_version__number",
            "task__status",
            "task__attempts",
            "task__prompt_tokens",
            "task__completion_tokens",
            "task__reasoning",
            "task__last_error",
            "criterion__position",
            "criterion__key",
            "criterion__ability__label",
            "criterion__ability__category__name_en",
            "criterion__weight",
            "criterion__is_catastrophic",
        )
    )
    for task_id, criterion_id, *task_values, position, key, ability, category, weight, cat in rows:
        if (task_id, criterion_id) not in undecided:
            continue
        yield [
            run.benchmark.slug,
            run.pk,
            *task_values,
            position,
            str(key),
            ability,
            category,
            weight,
            flag(cat),
            None,
            None,
            *_members(votes[(task_id, criterion_id)]),
        ]


def _members(unit: UnitVotes | None) -> list:
    if unit is None:
        return [None, None]
    share = unit.disagreement
    return [
        f"{unit.met}/{unit.not_met}/{unit.failed}",
        None if share is None else round(share, 4),
    ]


def run_abilities(run: JudgeRun) -> list[str]:
    """The labels of the abilities the run's rubric versions assess, in taxonomy order."""
    used = (
        Criterion.objects.filter(
            rubric_version_id__in=JudgeTask.objects.requested()
            .filter(run=run)
            .values("rubric_version_id")
        )
        .values_list("ability_id", flat=True)
        .distinct()
    )
    return list(Ability.objects.filter(pk__in=used).values_list("label", flat=True))


def case_score_rows(
    *, run: JudgeRun, profile: Profile | str, abilities: list[str] | None = None
) -> Iterator[list]:
    """One row per task of the run: a done task's case score, then S_d for each of
    `abilities` (by default `run_abilities`; None where the case has no such criterion or no
    score) under `profile`; any other task (failed, pending, cancelled) with its status and
    empty scores, never 0. One streamed query, grouped task by task."""
    profile = Profile(profile)
    if abilities is None:
        abilities = run_abilities(run)
    benchmark = run.benchmark.slug
    rows = (
        JudgeTask.objects.requested()
        .filter(run=run)
        .order_by("system__name", "case__position", "pk", "verdicts__criterion__position")
        .values_list(
            "pk",
            "system__name",
            "system__kind",
            "case__external_id",
            "case__difficulty",
            "case__scenario__primary",
            "case__scenario__secondary",
            "status",
            "verdicts__criterion__ability__label",
            "verdicts__criterion__ability__category__name_en",
            "verdicts__criterion__weight",
            "verdicts__criterion__is_catastrophic",
            "verdicts__hit",
        )
        .iterator(chunk_size=CHUNK_SIZE)
    )

    def finish(head: tuple, criteria: list[ScoredCriterion]) -> list:
        system, kind, question_id, difficulty, primary, secondary, status = head
        prefix = [benchmark, run.pk, profile.value, system, kind, question_id, difficulty]
        prefix += [primary, secondary, status]
        if status != JudgeTask.Status.DONE:
            return [*prefix, None, None, None, *(None for _label in abilities)]
        scores = score_case(
            CaseVerdicts(
                case_id=question_id,
                difficulty=difficulty,
                scenario=" / ".join(part for part in (primary, secondary) if part),
                criteria=tuple(criteria),
            ),
            profile,
        )
        # Full precision: a file for analysis is never rounded.
        by_ability = dict(scores.abilities)
        score = scores.score
        return [
            *prefix,
            score.value,
            int(scores.catastrophe),
            score.reason or None,
            *(by_ability.get(label) for label in abilities),
        ]

    current: int | None = None
    head: tuple = ()
    criteria: list[ScoredCriterion] = []
    for task_id, *fields, label, category, weight, catastrophic, hit in rows:
        if task_id != current:
            if current is not None:
                yield finish(head, criteria)
            current, head, criteria = task_id, tuple(fields), []
        if hit is not None:
            criteria.append(
                ScoredCriterion(
                    ability=label,
                    category=category or "",
                    weight=weight,
                    is_catastrophic=catastrophic,
                    hit=hit,
                )
            )
    if current is not None:
        yield finish(head, criteria)
