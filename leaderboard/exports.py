"""Research exports: flat rows of plain values, streamed in a fully stable order.

Every generator here yields lists of str/int/float values (never model objects), in an order
fixed by explicit `order_by` on unique keys, so two exports of the same data are identical
byte for byte. Memory stays flat however large the round or run: rows are read with
`values_list(...).iterator(chunk_size=...)`, or, for the tidy file, item by item in keyset
pages of `CHUNK_SIZE` items with a fixed handful of queries per page (never one per row).

Experts are named only by their per-round pseudonym (`rater_pseudonyms`), never by username.
"""

import json
from collections import defaultdict
from collections.abc import Iterator

from django.db.models import F

from annotation.models import Assignment, Criterion, ReviewItem, ReviewRound, Vote
from judging.models import JudgeRun, JudgeTask, Verdict
from judging.scoring import CaseVerdicts, Profile, ScoredCriterion, score_case
from leaderboard.selectors.agreement import rater_pseudonyms
from leaderboard.stats.consensus import MAJORITY, TIE, majority

# Items per page of the tidy export; rows per fetch of the streamed exports.
CHUNK_SIZE = 500

TIDY_HEADER = (
    "benchmark",
    "round",
    "judge_run",
    "question_id",
    "difficulty",
    "primary_scene",
    "secondary_scene",
    "system",
    "system_kind",
    "item_code",
    "rubric_version",
    "criterion_position",
    "criterion_key",
    "ability",
    "category",
    "weight",
    "is_catastrophic",
    "rater",
    "rater_hit",
    "rater_note",
    "rater_seconds",
    "consensus",
    "consensus_votes",
    "judge_hit",
    "judge_status",
    "judge_reasoning",
)

VOTES_HEADER = (
    "benchmark",
    "round",
    "question_id",
    "system",
    "item_code",
    "criterion_position",
    "criterion_key",
    "rater",
    "assignment_status",
    "revision",
    "is_current",
    "hit",
    "note",
    "rater_seconds",
    "submitted",
    "vote_created",
)

VERDICTS_HEADER = (
    "benchmark",
    "judge_run",
    "question_id",
    "system",
    "rubric_version",
    "task_status",
    "attempts",
    "prompt_tokens",
    "completion_tokens",
    "task_reasoning",
    "last_error",
    "criterion_position",
    "criterion_key",
    "ability",
    "hit",
    "reasoning",
)

SCORES_HEADER = (
    "benchmark",
    "judge_run",
    "profile",
    "system",
    "system_kind",
    "question_id",
    "difficulty",
    "primary_scene",
    "secondary_scene",
    "status",
    "case_score",
    "catastrophe",
    "abilities",
    "undefined_reason",
)

# What the tidy file calls a judge task's state: anything not done or failed (no task,
# pending, running, cancelled) has no verdict to compare and is "missing".
JUDGE_DONE, JUDGE_FAILED, JUDGE_MISSING = "done", "failed", "missing"


def _flag(value: bool | None) -> int | str:
    """1/0 for a boolean, "" for no value: never a guessed 0."""
    return "" if value is None else int(value)


def _text(value) -> str:
    return "" if value is None else str(value)


def _when(value) -> str:
    return "" if value is None else value.isoformat()


def _consensus(hits: list[bool]) -> int | str:
    if not hits:
        return "none"
    verdict = majority(hits)
    if verdict.outcome == MAJORITY:
        return int(verdict.label)
    return "tie" if verdict.outcome == TIE else "none"


def _rater_name(pseudonym: dict[int, str], expert_id: int) -> str:
    # An expert since removed from the round keeps a pseudonym built from the id (never a name).
    return pseudonym.get(expert_id, f"E{expert_id}")


def _item_pages(round_: ReviewRound) -> Iterator[list[tuple]]:
    """The round's items in pk order, a page at a time (keyset pagination: one query a page,
    and an item added meanwhile can neither be skipped nor repeated within the order)."""
    fields = (
        "pk",
        "code",
        "response_id",
        "rubric_version_id",
        "rubric_version__number",
        "response__case__external_id",
        "response__case__difficulty",
        "response__case__scenario__primary",
        "response__case__scenario__secondary",
        "response__system__name",
        "response__system__kind",
    )
    last = 0
    while True:
        page = list(
            ReviewItem.objects.filter(round=round_, pk__gt=last)
            .order_by("pk")
            .values_list(*fields)[:CHUNK_SIZE]
        )
        if not page:
            return
        yield page
        if len(page) < CHUNK_SIZE:
            return
        last = page[-1][0]


def tidy_rows(*, round_: ReviewRound, run: JudgeRun) -> Iterator[list]:
    """THE long format: one row per (sampled response, criterion of its frozen rubric
    version, rater with a current submitted vote), with the majority of those votes and the
    judge's verdict on the same criterion. A (response, criterion) nobody has voted on yet
    still has one row, with empty rater fields and consensus "none".

    Order: item pk, criterion position, rater pseudonym. Queries: two up front (benchmark
    slug is on the round, pseudonyms), then four per page of `CHUNK_SIZE` items (items,
    criteria, votes, judge tasks and verdicts), whatever the number of rows.
    """
    benchmark = round_.benchmark.slug
    pseudonym = rater_pseudonyms(round_=round_)
    for page in _item_pages(round_):
        item_ids = [row[0] for row in page]
        response_ids = [row[2] for row in page]

        criteria: dict[int, list[tuple]] = defaultdict(list)
        for version, *fields in (
            Criterion.objects.filter(rubric_version_id__in={row[3] for row in page})
            .order_by("rubric_version_id", "position", "pk")
            .values_list(
                "rubric_version_id",
                "pk",
                "position",
                "key",
                "ability__label",
                "ability__category__name_en",
                "weight",
                "is_catastrophic",
            )
        ):
            criteria[version].append(tuple(fields))

        votes: dict[tuple[int, int], list[tuple]] = defaultdict(list)
        for item_id, criterion_id, expert_id, hit, note, seconds in (
            Vote.objects.filter(
                assignment__item_id__in=item_ids,
                assignment__status=Assignment.Status.SUBMITTED,
                revision=F("assignment__revision"),
            )
            .order_by("assignment__item_id", "criterion_id", "assignment__expert_id", "pk")
            .values_list(
                "assignment__item_id",
                "criterion_id",
                "assignment__expert_id",
                "hit",
                "note",
                "assignment__active_seconds",
            )
        ):
            votes[(item_id, criterion_id)].append(
                (_rater_name(pseudonym, expert_id), expert_id, hit, note, seconds)
            )

        # One task per (run, case, system), hence at most one per response.
        task_status = {
            response_id: status
            for response_id, status in JudgeTask.objects.filter(
                run=run, response_id__in=response_ids
            )
            .order_by("pk")
            .values_list("response_id", "status")
        }
        verdicts = {
            (response_id, criterion_id): (hit, reasoning)
            for response_id, criterion_id, hit, reasoning in Verdict.objects.filter(
                task__run=run,
                task__status=JudgeTask.Status.DONE,
                task__response_id__in=response_ids,
            )
            .order_by("pk")
            .values_list("task__response_id", "criterion_id", "hit", "reasoning")
        }

        for (
            item_id,
            code,
            response_id,
            version_id,
            version_number,
            question_id,
            difficulty,
            primary,
            secondary,
            system,
            system_kind,
        ) in page:
            status = task_status.get(response_id)
            judge_status = (
                JUDGE_DONE
                if status == JudgeTask.Status.DONE
                else JUDGE_FAILED
                if status == JudgeTask.Status.FAILED
                else JUDGE_MISSING
            )
            head = [
                benchmark,
                round_.name,
                run.pk,
                question_id,
                difficulty,
                _text(primary),
                _text(secondary),
                system,
                system_kind,
                code,
                version_number,
            ]
            for criterion_id, position, key, ability, category, weight, catastrophic in criteria[
                version_id
            ]:
                unit_votes = sorted(votes.get((item_id, criterion_id), []), key=lambda v: v[1])
                hits = [vote[2] for vote in unit_votes]
                consensus = _consensus(hits)
                verdict = verdicts.get((response_id, criterion_id))
                # A failed or missing task never yields a number, even if a stale verdict exists.
                judged = verdict if judge_status == JUDGE_DONE else None
                criterion = [
                    position,
                    str(key),
                    ability,
                    _text(category),
                    _text(weight),
                    int(catastrophic),
                ]
                tail = [
                    consensus,
                    len(hits),
                    _flag(judged[0] if judged else None),
                    judge_status,
                    judged[1] if judged else "",
                ]
                if not unit_votes:
                    yield [*head, *criterion, "", "", "", "", *tail]
                for rater, _expert, hit, note, seconds in unit_votes:
                    yield [*head, *criterion, rater, int(hit), note, seconds, *tail]


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
            _rater_name(pseudonym, expert_id),
            status,
            revision,
            int(is_current),
            int(hit),
            note,
            seconds,
            _when(submitted),
            _when(created),
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
            _text(version),
            status,
            attempts,
            prompt_tokens,
            completion_tokens,
            task_reasoning,
            last_error,
            _text(position),
            _text(key),
            _text(ability),
            _flag(hit),
            _text(reasoning),
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
        prefix += [_text(primary), _text(secondary), status]
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
        abilities = {label: round(value, 4) for label, value in scores.abilities.items()}
        score = scores.score
        return [
            *prefix,
            "" if score.value is None else round(score.value, 4),
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
