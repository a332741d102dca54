"""The tidy long file: one row per (sampled response, criterion, rater)."""

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate
from operator import itemgetter
from typing import Any

from django.db import connections

from annotation.consensus import consensus_cell
from annotation.models import Criterion, ReviewItem, ReviewRound, Vote
from core.tables import FORMULA_START, csv_cell, csv_join, spreadsheet_cells, spreadsheet_text
from judging.models import JudgeRun, JudgeTask, Verdict
from leaderboard.exports.values import rater_name
from leaderboard.report.selectors.agreement import rater_pseudonyms

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


# Rubric versions whose criteria cells an export keeps between pages (a sampled case comes
# back on later pages, once per system): a bound, so memory does not grow with the round.
CRITERIA_KEPT = 2000


def _criteria_cells(
    known: dict[int, list[tuple[int, Any]]], version_ids: set[int], join: Callable[[tuple], Any]
) -> dict[int, list[tuple[int, Any]]]:
    """Per rubric version, its criteria in order as (criterion id, the six criterion cells
    through `join`): the versions in `known` as they are, the others read (one query) and
    added to it."""
    missing = version_ids - known.keys()
    if not missing:
        return known
    if len(known) + len(missing) > CRITERIA_KEPT:
        known.clear()
        missing = version_ids
    criteria: dict[int, list[tuple[int, Any]]] = defaultdict(list)
    for version, pk, position, key, ability, category, weight, catastrophic in _plain_rows(
        Criterion.objects.filter(rubric_version_id__in=list(missing))
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
        # Missing values stay None: empty in CSV, null in JSON Lines.
        cells = (position, key, ability, category, weight, int(catastrophic))
        criteria[version].append((pk, join(cells)))
    known.update(criteria)
    for version in missing - criteria.keys():
        known[version] = []  # a version without criteria
    return known


def _same(value):
    return value


_unit_of, _expert_of, _hit_of = itemgetter(0, 1), itemgetter(2), itemgetter(3)


def _units(
    *,
    round_: ReviewRound,
    run: JudgeRun,
    names: dict[int, Any],
    join: Callable[[tuple], Any],
    cell: Callable[[str], Any],
) -> Iterator[tuple[Any, Any, Sequence[tuple], Any]]:
    """(head, criterion cells, votes, tail) per (sampled response, criterion) in file order:
    what every row of the unit shares, and its current submitted votes as (item, criterion,
    expert, hit, note, seconds). Head and criterion cells go through `join` once per item and
    once per criterion of a page, never per row; `names` gets each rater's name through
    `cell` as the rater first appears, so a row only has its own cells left to write."""
    benchmark = round_.benchmark.slug
    pseudonym = rater_pseudonyms(round_=round_)
    done, failed = JudgeTask.Status.DONE, JudgeTask.Status.FAILED
    known: dict[int, list[tuple[int, Any]]] = {}
    for page in _item_pages(round_):
        # The page's items are the round's items between its first and last pk: the other
        # queries select by these bounds, never by a list of ids (Django prepares a list
        # value by value, and SQLite reads a range faster).
        first, last = page[0][0], page[-1][0]
        items = ReviewItem.objects.filter(round=round_, pk__gte=first, pk__lte=last)
        criteria = _criteria_cells(known, {row[3] for row in page}, join)

        # Votes come ordered by unit, then by expert (which is pseudonym order). The fetched
        # rows stay as they are, each unit a slice of them: a page keeps no list per unit
        # alive, which would cost more in garbage collection than everything else here.
        vote_rows = _plain_rows(
            Vote.objects.current()
            .filter(
                assignment__item__round=round_,
                assignment__item_id__gte=first,
                assignment__item_id__lte=last,
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
        # Where each unit's slice starts and ends, and the running count of hits, built by
        # dict(), zip() and map() rather than a loop of Python code (this runs once per
        # vote): the last row of a unit sets its end; read backwards, its first row sets its
        # start last.
        count = len(vote_rows)
        ends = dict(zip(map(_unit_of, vote_rows), range(1, count + 1), strict=True))
        backwards = map(_unit_of, reversed(vote_rows))
        starts = dict(zip(backwards, range(count - 1, -1, -1), strict=True))
        hits_before = list(accumulate(map(_hit_of, vote_rows), initial=0))
        for expert in set(map(_expert_of, vote_rows)) - names.keys():
            names[expert] = cell(rater_name(pseudonym, expert))

        # One task per (run, case, system), hence at most one per response.
        task_status: dict[int, str] = {}
        done_tasks: dict[int, int] = {}
        for task_id, response_id, status in (
            JudgeTask.objects.requested()
            .filter(response_id__in=items.values("response_id"), run=run)
            .order_by("pk")
            .values_list("pk", "response_id", "status")
        ):
            task_status[response_id] = status
            if status == done:
                done_tasks[task_id] = response_id
        # By the done tasks' ids: the verdict index answers this without reading the rest of
        # the run's tasks. (`task__pk__in` is the same SQL as `task_id__in`, with a cheaper
        # preparation of the ids.) No done task, nothing to read: an empty list of ids is no
        # query at all to Django (EmptyResultSet).
        verdicts: dict[tuple[int, int], tuple] = {}
        if done_tasks:
            verdicts = {
                (done_tasks[verdict[0]], verdict[1]): verdict
                for verdict in _plain_rows(
                    Verdict.objects.filter(task__pk__in=list(done_tasks))
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
            head = join(
                (
                    benchmark,
                    round_.name,
                    run.pk,
                    question_id,
                    difficulty,
                    primary,
                    secondary,
                    system,
                    system_kind,
                    code,
                    version_number,
                )
            )
            for criterion_id, cells in criteria[version_id]:
                unit = (item_id, criterion_id)
                end = ends.get(unit)
                if end is None:
                    unit_votes, hits = (), 0
                else:
                    start = starts[unit]
                    unit_votes = vote_rows[start:end]
                    hits = hits_before[end] - hits_before[start]
                # A failed or missing task never yields a number, even if a stale verdict
                # exists.
                judged = verdicts.get((response_id, criterion_id)) if status == done else None
                tail = (
                    consensus_cell(hits, len(unit_votes)),
                    len(unit_votes),
                    int(judged[2]) if judged else None,
                    judge_status,
                    judged[3] if judged else None,
                )
                yield head, cells, unit_votes, tail


def tidy_rows(*, round_: ReviewRound, run: JudgeRun) -> Iterator[list]:
    """THE long format: one row per (sampled response, criterion of its frozen rubric
    version, rater with a current submitted vote), with the majority of those votes and the
    judge's verdict on the same criterion. A (response, criterion) nobody has voted on yet
    still has one row, with empty rater fields and consensus "none".

    Order: item pk, criterion position, rater pseudonym. Queries: two up front (benchmark
    slug is on the round, pseudonyms), then five per page of `CHUNK_SIZE` items (items,
    criteria, votes, judge tasks and verdicts; no verdicts query for a page without a done
    task), whatever the number of rows.
    """
    names: dict[int, str] = {}
    for head, cells, unit_votes, tail in _units(
        round_=round_, run=run, names=names, join=_same, cell=_same
    ):
        if not unit_votes:
            yield [*head, *cells, None, None, None, None, *tail]
        for _item, _criterion, expert, hit, note, seconds in unit_votes:
            yield [*head, *cells, names[expert], int(hit), note, seconds, *tail]


def _csv_bytes(values: tuple) -> bytes:
    return csv_join(values).encode()


def _csv_cell_bytes(value) -> bytes:
    return csv_cell(value).encode()


def _safe_csv_bytes(values: tuple) -> bytes:
    return csv_join(spreadsheet_cells(values)).encode()


def _safe_text(value: str) -> str:
    # The per-row free text (notes, reasoning): one look at its first character.
    return spreadsheet_text(value) if value[:1] in FORMULA_START else value


def _raw_text(value: str) -> str:
    return value


# rater_hit with the commas on either side, for a 0/1 or False/True.
_HIT_CELLS = (b",0,", b",1,")


def tidy_csv_lines(*, round_: ReviewRound, run: JudgeRun, safe: bool = False) -> Iterator[bytes]:
    """`tidy_rows` as CSV lines (UTF-8, no header), one chunk per row: the very bytes
    `csv_lines` writes for them (spreadsheet-safe with `safe`). Most of a row is its unit's,
    written and encoded once per unit (item and criterion cells once per item and per
    criterion); a row only joins them with the rater's own cells."""
    names: dict[int, bytes] = {}
    join, free_text = (_safe_csv_bytes, _safe_text) if safe else (_csv_bytes, _raw_text)
    for head, cells, unit_votes, tail in _units(
        round_=round_,
        run=run,
        names=names,
        join=join,
        cell=lambda name: _csv_cell_bytes(free_text(name)),
    ):
        front = b"".join((head, b",", cells, b","))
        consensus, votes, judge_hit, judge_status, reasoning = tail
        # Numbers, "" and fixed words (never quoted) but for the judge's free text.
        reasoning = csv_cell(free_text(reasoning)) if reasoning else ""
        judge_hit = "" if judge_hit is None else judge_hit
        back = f",{consensus},{votes},{judge_hit},{judge_status},{reasoning}\n".encode()
        if not unit_votes:
            yield b"".join((front, b",,,", back))
        for _item, _criterion, expert, hit, note, seconds in unit_votes:
            if seconds.__class__ is int:  # %d writes an int as str() does
                seconds = b",%d" % seconds
            else:
                seconds = b"," + _csv_cell_bytes(seconds)
            note = _csv_cell_bytes(free_text(note)) if note else b""
            yield b"".join((front, names[expert], _HIT_CELLS[hit], note, seconds, back))
