"""Where an expert stands in a round's pool, as each "next item" needs it: whether they are
in the pool, whether they have read the round's votes (as adjudicator), the round's size,
their place in the pool and their specialities.

One statement, written as SQL: it runs on every claim, and building its six subqueries
through the ORM cost several times the database's time to answer (bench/annotation_profile.py)."""

from dataclasses import dataclass

from django.db import connection

from annotation.models import ExpertProfile, ReviewItem, ReviewRound, VotesSeen


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
_STANDING = (
    f"SELECT EXISTS (SELECT 1 FROM {_POOL} WHERE reviewround_id = %(round)s "
    "AND user_id = %(expert)s), "
    f"EXISTS (SELECT 1 FROM {VotesSeen._meta.db_table} s JOIN {_ITEMS} i ON i.id = s.item_id "
    "WHERE i.round_id = %(round)s AND s.user_id = %(expert)s), "
    f"(SELECT COUNT(*) FROM {_ITEMS} WHERE round_id = %(round)s), "
    f"(SELECT COUNT(*) FROM {_POOL} WHERE reviewround_id = %(round)s), "
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
