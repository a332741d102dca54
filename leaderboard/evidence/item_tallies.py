"""A round's items in hand-out order, each with how many of its units the judge and the
experts' majority agree on: the one tally the gate's history and the sequential test both
read (no Django), and each item's sampling weight when the round drew them with unequal
chances.

A unit without a judge verdict, or without a majority (a tie, or no votes), counts in
neither total. An item is settled when each of its units has the round's votes."""

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from annotation.consensus import has_majority, majority_hit


@dataclass(frozen=True)
class ItemTally:
    response: int
    agree: int
    units: int
    settled: bool
    raters: int  # the experts who voted on it (a rating is one expert's verdicts on it)


def item_tallies(
    units: Sequence, ranks: Mapping[int, int], raters_per_item: int
) -> tuple[list[ItemTally], int]:
    """The items of `units` (leaderboard.report.agreement.Unit) in hand-out order (`ranks`: per
    response), and the most units any item has."""
    by_item: dict[int, list] = defaultdict(list)
    for unit in units:
        by_item[unit.response].append(unit)
    found = []
    for response in sorted(by_item, key=lambda r: (ranks.get(r, len(ranks)), r)):
        group = by_item[response]
        agree = counted = 0
        for unit in group:
            votes = len(unit.votes)
            hits = sum(1 for _rater, hit in unit.votes if hit)
            if unit.judge is None or not has_majority(votes, hits):
                continue
            counted += 1
            agree += unit.judge == bool(majority_hit(votes, hits))
        found.append(
            ItemTally(
                response=response,
                agree=agree,
                units=counted,
                settled=all(len(unit.votes) >= raters_per_item for unit in group),
                raters=len({rater for unit in group for rater, _hit in unit.votes}),
            )
        )
    return found, max((len(group) for group in by_item.values()), default=0)


def item_weights(units: Sequence, weights: Sequence[float] | None) -> dict[int, float]:
    """Each response's weight from its units' (one per unit, the same for every unit of a
    response); empty when the weights are equal or not given (nothing to weight)."""
    if weights is None or len(set(weights)) <= 1:
        return {}
    if len(weights) != len(units):
        raise ValueError("one weight per unit")
    found: dict[int, float] = {}
    for unit, weight in zip(units, weights, strict=True):
        if found.setdefault(unit.response, weight) != weight:
            raise ValueError(f"response {unit.response}: its units carry different weights")
    return found
