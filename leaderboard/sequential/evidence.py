"""The evidence the anytime-valid gate reads (no Django): the round's items in hand-out
order, each with how many of its units the judge and the experts' majority agree on.

An item enters only once it and every item before it in the hand-out order are settled
(each of its criteria has the votes the round asks for), so items that take longer to rate
cannot bias the result by arriving late. Within a settled item, units without a judge
verdict or without a majority (a tie) count in neither total.

A round whose responses were drawn with unequal chances is weighted: each item's excess
counts by its chance ratio, its inverse-probability weight over the round's largest
(leaderboard.stats.sequential_weighted says why the test stays valid), so the test speaks
for the responses the round samples, as the weighted share does, not for the sample."""

from collections.abc import Mapping, Sequence
from itertools import takewhile

from leaderboard.evidence.item_tallies import item_tallies, item_weights
from leaderboard.report.agreement import Unit
from leaderboard.stats.reasons import SEQUENTIAL_THRESHOLD
from leaderboard.stats.sequential import DEFAULT_ALPHA, sequential_gate
from leaderboard.stats.sequential_weighted import chance_ratios


def settled_prefix(
    units: Sequence[Unit], ranks: Mapping[int, int], raters_per_item: int
) -> tuple[list[int], list[int], int, list[int]]:
    """(agree per item, units per item) of the settled prefix in hand-out order, the most
    units any item of the round has, and the ratings of each item of the prefix (a rating
    is one expert's verdicts on one item: the experts who voted on it)."""
    items, most = item_tallies(units, ranks, raters_per_item)
    prefix = list(takewhile(lambda item: item.settled, items))
    return (
        [item.agree for item in prefix],
        [item.units for item in prefix],
        most,
        [item.raters for item in prefix],
    )


def sequential_block(
    units: Sequence[Unit],
    ranks: Mapping[int, int],
    *,
    raters_per_item: int,
    threshold: float,
    alpha: float = DEFAULT_ALPHA,
    with_path: bool = False,
    weights: Sequence[float] | None = None,
) -> dict:
    """The report's "sequential" entry: the decision so far, the items it used of the
    round's, the two tests' e-values and the confidence sequence for agreement; with
    `with_path`, also the sequence after each item used (`path`: [low, high] per item).
    `weights` (per unit, the inverse of its response's inclusion probability): unequal
    ones weight the test (see the module), and the entry says so (`weighted`, with the
    round's smallest chance, `least_chance`)."""
    by_response = item_weights(units, weights)
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
    items, most = item_tallies(units, ranks, raters_per_item)
    prefix = list(takewhile(lambda item: item.settled, items))
    ratings = [item.raters for item in prefix]
    gate = sequential_gate(
        [item.agree for item in prefix],
        [item.units for item in prefix],
        threshold=threshold,
        alpha=alpha,
        max_units=most,
        ratios=chance_ratios([by_response[item.response] for item in items])
        if by_response
        else None,
    )
    items_total = len(items)
    extra = {"path": [list(step) for step in gate.cs_path]} if with_path else {}
    if by_response:
        extra["least_chance"] = 1.0 / max(by_response.values())
    return {
        **gate.as_dict(),
        **extra,
        "items_total": items_total,
        "ratings_used": sum(ratings),
        # Ratings (one expert's verdicts on one item): those the decision needed, those the
        # round plans (every item, by as many experts as the round asks for), those given.
        "ratings_needed": None if gate.decided_at is None else sum(ratings[: gate.decided_at]),
        "ratings_planned": items_total * raters_per_item,
        "ratings_total": sum(item.raters for item in items),
    }
