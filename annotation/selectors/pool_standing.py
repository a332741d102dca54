"""Where an expert stands in a round, as each "next item" and each annotation page needs it:
whether they are in the pool, whether they have read the round's votes (otherwise than in
an item's thread: services/votes_seen.py), the
round's size, their place in the pool, their specialities, and their assignments.

Written as SQL: these run on every claim and page, and building them through the ORM cost
several times the database's time to answer (bench/annotation_profile.py)."""

from dataclasses import dataclass

from django.db import connection

from annotation.models import Assignment, ExpertProfile, ReviewItem, ReviewRound, VotesSeen


@dataclass(frozen=True)
class PoolStanding:
    in_pool: bool
    seen_votes: bool
    items: int  # in the round
    experts: int  # in the pool
    position: int  # pool members with a smaller id
    specialities: list[str]


_POOL = ReviewRound.experts.through._meta.db_table
_ITEMS = ReviewItem._meta.db_table
_SPECIALITIES = ExpertProfile._meta.get_field("specialities")
_ITEM_COUNT = f"(SELECT COUNT(*) FROM {_ITEMS} WHERE round_id = %(round)s)"
_POOL_SIZE = f"(SELECT COUNT(*) FROM {_POOL} WHERE reviewround_id = %(round)s)"
_STANDING = (
    f"SELECT EXISTS (SELECT 1 FROM {_POOL} WHERE reviewround_id = %(round)s "
    "AND user_id = %(expert)s), "
    f"EXISTS (SELECT 1 FROM {VotesSeen._meta.db_table} s JOIN {_ITEMS} i ON i.id = s.item_id "
    "WHERE i.round_id = %(round)s AND s.user_id = %(expert)s "
    f"AND s.via <> '{VotesSeen.Via.DISCUSSION.value}'), "
    f"{_ITEM_COUNT}, {_POOL_SIZE}, "
    f"(SELECT COUNT(*) FROM {_POOL} WHERE reviewround_id = %(round)s AND user_id < %(expert)s), "
    f"(SELECT specialities FROM {ExpertProfile._meta.db_table} WHERE user_id = %(expert)s)"
)


def pool_standing(*, round_id: int, expert_id: int) -> PoolStanding:
    with connection.cursor() as cursor:
        cursor.execute(_STANDING, {"round": round_id, "expert": expert_id})
        in_pool, seen, items, experts, position, specialities = cursor.fetchone()
    if specialities is not None:
        specialities = _SPECIALITIES.from_db_value(specialities, None, connection)
    return PoolStanding(
        in_pool=bool(in_pool),
        seen_votes=bool(seen),
        items=items,
        experts=experts,
        position=position,
        specialities=specialities or [],
    )


def round_size(*, round_id: int) -> tuple[int, int]:
    """The round's item count and pool size."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {_ITEM_COUNT}, {_POOL_SIZE}", {"round": round_id})
        return cursor.fetchone()


def round_progress(*, round_id: int, raters: int, open_statuses) -> tuple[int, int, int]:
    """The round's item count, its pool size, and its items still lacking a rater's
    submission: short of raters, or held by someone who has not submitted (an assignment in
    one of `open_statuses`)."""
    params = {"round": round_id, "raters": raters}
    params.update({f"open{i}": str(status) for i, status in enumerate(open_statuses)})
    held = ", ".join(f"%(open{i})s" for i in range(len(open_statuses)))
    sql = (
        f"SELECT {_ITEM_COUNT}, {_POOL_SIZE}, (SELECT COUNT(*) FROM {_ITEMS} i "
        "WHERE i.round_id = %(round)s AND (i.assigned_count < %(raters)s OR EXISTS "
        f"(SELECT 1 FROM {Assignment._meta.db_table} a WHERE a.item_id = i.id "
        f"AND a.status IN ({held}))))"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


_MINE = (
    f"SELECT a.id, a.status, a.active_seconds FROM {Assignment._meta.db_table} a "
    f"JOIN {_ITEMS} i ON i.id = a.item_id WHERE a.expert_id = %s AND i.round_id = %s "
    "ORDER BY a.id"
)


def assignments_in_round(*, expert_id: int, round_id: int) -> list[tuple[int, str, int]]:
    """(id, status, active seconds) of each of the expert's assignments in the round, in the
    order they were handed out; skipped ones included."""
    with connection.cursor() as cursor:
        cursor.execute(_MINE, [expert_id, round_id])
        return cursor.fetchall()
