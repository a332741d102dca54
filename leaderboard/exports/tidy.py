"""The tidy long file: one row per (sampled response, criterion, rater)."""

from collections import defaultdict
from collections.abc import Iterator

from django.db import connections
from django.db.models import F

from annotation.models import Assignment, Criterion, ReviewItem, ReviewRound, Vote
from judging.models import JudgeRun, JudgeTask, Verdict
from leaderboard.exports.values import rater_name, text
from leaderboard.selectors.agreement import rater_pseudonyms

# Items per page of the tidy export.
CHUNK_SIZE = 500

# What the tidy file calls a judge task's state: anything not done or failed (no task,
# pending, running, cancelled) has no verdict to compare and is "missing".
JUDGE_DONE, JUDGE_FAILED, JUDGE_MISSING = "done", "failed", "missing"


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


def _plain_rows(queryset) -> list[tuple]:
    """The queryset's rows straight from the database cursor. Django's per-value converters
    (SQLite's 0/1 to bool) cost more than the read itself at 140,000 votes; every boolean
    read this way goes through int() before it is written, so both databases give the same
    cells."""
    sql, params = queryset.query.sql_with_params()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _uuid_text(value) -> str:
    # Read without Django's converters, a UUID comes back as 32 hex digits from SQLite and
    # as a uuid.UUID from PostgreSQL; both are written in the usual dashed form.
    if isinstance(value, str) and len(value) == 32:
        return f"{value[:8]}-{value[8:12]}-{value[12:16]}-{value[16:20]}-{value[20:]}"
    return str(value)


def _criteria_cells(version_ids: set[int]) -> dict[int, list[tuple[int, tuple]]]:
    """Per rubric version, its criteria in order as (criterion id, the six criterion cells)."""
    criteria: dict[int, list[tuple[int, tuple]]] = defaultdict(list)
    for version, pk, position, key, ability, category, weight, catastrophic in _plain_rows(
        Criterion.objects.filter(rubric_version_id__in=version_ids)
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
        key = _uuid_text(key)
        cells = (position, key, ability, text(category), text(weight), int(catastrophic))
        criteria[version].append((pk, cells))
    return criteria


def _consensus(hits: int, votes: int) -> int | str:
    # `consensus_cell` for binary votes, from the count of hits alone (it is the hot loop).
    if not votes:
        return "none"
    if 2 * hits > votes:
        return 1
    return 0 if 2 * hits < votes else "tie"


def tidy_rows(*, round_: ReviewRound, run: JudgeRun) -> Iterator[list]:
    """THE long format: one row per (sampled response, criterion of its frozen rubric
    version, rater with a current submitted vote), with the majority of those votes and the
    judge's verdict on the same criterion. A (response, criterion) nobody has voted on yet
    still has one row, with empty rater fields and consensus "none".

    Order: item pk, criterion position, rater pseudonym. Queries: two up front (benchmark
    slug is on the round, pseudonyms), then five per page of `CHUNK_SIZE` items (items,
    criteria, votes, judge tasks and verdicts), whatever the number of rows.
    """
    benchmark = round_.benchmark.slug
    pseudonym = rater_pseudonyms(round_=round_)
    names: dict[int, str] = {}
    done, failed = JudgeTask.Status.DONE, JudgeTask.Status.FAILED
    for page in _item_pages(round_):
        item_ids = [row[0] for row in page]
        response_ids = [row[2] for row in page]
        criteria = _criteria_cells({row[3] for row in page})

        # Votes come ordered by unit, then by expert (which is pseudonym order). The fetched
        # rows stay as they are, each unit a slice of them: a page keeps no list per unit
        # alive, which would cost more in garbage collection than everything else here.
        vote_rows = _plain_rows(
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
        )
        votes: dict[tuple[int, int], tuple[int, int]] = {}
        start = 0
        for end in range(1, len(vote_rows) + 1):
            if end == len(vote_rows) or vote_rows[end][:2] != vote_rows[start][:2]:
                votes[vote_rows[start][:2]] = (start, end)
                start = end
        for expert in {vote[2] for vote in vote_rows} - names.keys():
            names[expert] = rater_name(pseudonym, expert)

        # One task per (run, case, system), hence at most one per response.
        task_status: dict[int, str] = {}
        done_tasks: dict[int, int] = {}
        for task_id, response_id, status in (
            JudgeTask.objects.filter(response_id__in=response_ids, run=run)
            .order_by("pk")
            .values_list("pk", "response_id", "status")
        ):
            task_status[response_id] = status
            if status == done:
                done_tasks[task_id] = response_id
        # By the done tasks' ids: the verdict index answers this without reading the rest of
        # the run's tasks.
        verdicts = {
            (done_tasks[verdict[0]], verdict[1]): verdict
            for verdict in _plain_rows(
                Verdict.objects.filter(task_id__in=list(done_tasks))
                .order_by("pk")
                .values_list("task_id", "criterion_id", "hit", "reasoning")
            )
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
            judge_status = JUDGE_MISSING
            if status in (done, failed):
                judge_status = JUDGE_DONE if status == done else JUDGE_FAILED
            head = (
                benchmark,
                round_.name,
                run.pk,
                question_id,
                difficulty,
                text(primary),
                text(secondary),
                system,
                system_kind,
                code,
                version_number,
            )
            for criterion_id, cells in criteria[version_id]:
                span = votes.get((item_id, criterion_id))
                unit_votes = vote_rows[span[0] : span[1]] if span else ()
                hits = sum(vote[3] for vote in unit_votes)
                # A failed or missing task never yields a number, even if a stale verdict
                # exists.
                judged = verdicts.get((response_id, criterion_id)) if status == done else None
                tail = (
                    _consensus(hits, len(unit_votes)),
                    len(unit_votes),
                    int(judged[2]) if judged else "",
                    judge_status,
                    judged[3] if judged else "",
                )
                if not unit_votes:
                    yield [*head, *cells, "", "", "", "", *tail]
                for _item, _criterion, expert, hit, note, seconds in unit_votes:
                    yield [*head, *cells, names[expert], int(hit), note, seconds, *tail]
