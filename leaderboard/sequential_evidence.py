"""The evidence the anytime-valid gate reads (no Django): the round's items in hand-out
order, each with how many of its units the judge and the experts' majority agree on.

An item enters only once it and every item before it in the hand-out order are settled
(each of its criteria has the votes the round asks for), so items that take longer to rate
cannot bias the result by arriving late. Within a settled item, units without a judge
verdict or without a majority (a tie) count in neither total."""

from collections import defaultdict
from collections.abc import Mapping, Sequence

from annotation.consensus import has_majority, majority_hit
from leaderboard.agreement import Unit
from leaderboard.stats.reasons import SEQUENTIAL_THRESHOLD
from leaderboard.stats.sequential import DEFAULT_ALPHA, sequential_gate


def _by_item(units: Sequence[Unit]) -> dict[int, list[Unit]]:
    by_item: dict[int, list[Unit]] = defaultdict(list)
    for unit in units:
        by_item[unit.response].append(unit)
    return by_item


def settled_prefix(
    units: Sequence[Unit], ranks: Mapping[int, int], raters_per_item: int
) -> tuple[list[int], list[int], int, list[int]]:
    """(agree per item, units per item) of the settled prefix in hand-out order, the most
    units any item of the round has, and the ratings of each item of the prefix (a rating
    is one expert's verdicts on one item: the experts who voted on it)."""
    by_item = _by_item(units)
    most = max((len(group) for group in by_item.values()), default=0)
    agree, counted, ratings = [], [], []
    for response in sorted(by_item, key=lambda r: (ranks.get(r, len(ranks)), r)):
        group = by_item[response]
        if any(len(unit.votes) < raters_per_item for unit in group):
            break
        item_agree = item_units = 0
        for unit in group:
            votes = len(unit.votes)
            hits = sum(1 for _rater, hit in unit.votes if hit)
            if unit.judge is None or not has_majority(votes, hits):
                continue
            item_units += 1
            item_agree += unit.judge == bool(majority_hit(votes, hits))
        agree.append(item_agree)
        counted.append(item_units)
        ratings.append(_raters(group))
    return agree, counted, most, ratings


def _raters(group: Sequence[Unit]) -> int:
    return len({rater for unit in group for rater, _hit in unit.votes})


def sequential_block(
    units: Sequence[Unit],
    ranks: Mapping[int, int],
    *,
    raters_per_item: int,
    threshold: float,
    alpha: float = DEFAULT_ALPHA,
    with_path: bool = False,
) -> dict:
    """The report's "sequential" entry: the decision so far, the items it used of the
    round's, the two tests' e-values and the confidence sequence for agreement; with
    `with_path`, also the sequence after each item used (`path`: [low, high] per item)."""
    if not 0.0 < threshold < 1.0:
        # A threshold of 0 or 1 is decided by the fixed rules alone (everything passes, or
        # only perfection does); betting against it has nothing to stake on.
        return {
            "decision": None,
            "reason": SEQUENTIAL_THRESHOLD,
            "threshold": threshold,
            "alpha": alpha,
            "items_total": len({unit.response for unit in units}),
        }
    agree, counted, most, ratings = settled_prefix(units, ranks, raters_per_item)
    gate = sequential_gate(agree, counted, threshold=threshold, alpha=alpha, max_units=most)
    items_total = len({unit.response for unit in units})
    extra = {"path": [list(step) for step in gate.cs_path]} if with_path else {}
    return {
        **gate.as_dict(),
        **extra,
        "items_total": items_total,
        "ratings_used": sum(ratings),
        # Ratings (one expert's verdicts on one item): those the decision needed, those the
        # round plans (every item, by as many experts as the round asks for), those given.
        "ratings_needed": None if gate.decided_at is None else sum(ratings[: gate.decided_at]),
        "ratings_planned": items_total * raters_per_item,
        "ratings_total": sum(_raters(group) for group in _by_item(units).values()),
    }
