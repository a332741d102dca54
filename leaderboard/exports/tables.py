"""The raw tables: every vote, every verdict, every case score, one streamed query each."""

import json
from collections.abc import Iterator

from annotation.models import Assignment, ReviewRound, Vote
from judging.models import JudgeRun, JudgeTask
from judging.scoring import CaseVerdicts, Profile, ScoredCriterion, score_case
from leaderboard.exports.values import CHUNK_SIZE, flag, rater_name, text, when
from leaderboard.selectors.agreement import rater_pseudonyms


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
    rows = (
        JudgeTask.objects.filter(run=run)
        .order_by("pk", "verdicts__criterion__position", "verdicts__pk")
        .values_list(
            "case__external_id",
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
            "verdicts__hit",
            "verdicts__reasoning",
        )
        .iterator(chunk_size=CHUNK_SIZE)
    )
    for (
        question_id,
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
        hit,
        reasoning,
    ) in rows:
        yield [
            benchmark,
            run.pk,
            question_id,
            system,
            text(version),
            status,
            attempts,
            prompt_tokens,
            completion_tokens,
            task_reasoning,
            last_error,
            text(position),
            text(key),
            text(ability),
            flag(hit),
            text(reasoning),
        ]


def case_score_rows(*, run: JudgeRun, profile: Profile | str) -> Iterator[list]:
    """One row per task of the run: a done task's case score and S_d per ability (JSON
    text, in rubric order) under `profile`; any other task (failed, pending, cancelled) with
    its status and an empty score, never 0. One streamed query, grouped task by task."""
    profile = Profile(profile)
    benchmark = run.benchmark.slug
    rows = (
        JudgeTask.objects.filter(run=run)
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
        prefix += [text(primary), text(secondary), status]
        if status != JudgeTask.Status.DONE:
            return [*prefix, "", "", "", ""]
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
        abilities = dict(scores.abilities)
        score = scores.score
        return [
            *prefix,
            "" if score.value is None else score.value,
            int(scores.catastrophe),
            json.dumps(abilities, ensure_ascii=False),
            score.reason or "",
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
