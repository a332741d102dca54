"""The human gold standard: the majority of the experts' votes, never a guessed tie.

This is the one home of the majority rule. `majority` decides one unit from its votes; for
binary votes the same rule reads from two counts (`has_majority`, `majority_hit`,
`consensus_cell`), which work alike on plain integers and on numpy arrays of counts, so the
report, the exports and the disagreement browser decide every unit exactly as the review
pages do. Pure Python: no Django here.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Literal

MAJORITY: Literal["majority"] = "majority"
TIE: Literal["tie"] = "tie"
NO_VOTES: Literal["no votes"] = "no votes"

Outcome = Literal["majority", "tie", "no votes"]


def _is_missing(vote: object) -> bool:
    """None and float NaN stand for 'no vote'."""
    return vote is None or (isinstance(vote, float) and math.isnan(vote))


@dataclass(frozen=True, slots=True)
class Consensus:
    """The outcome of a vote on one unit.

    ``label`` is the winning label for a majority and None otherwise, so a list of
    ``consensus.label`` values can be passed straight to the judge-vs-human measures, which
    leave out the units without a consensus. ``tied`` lists the labels sharing the top count.
    """

    outcome: Outcome
    label: Hashable | None
    votes: int
    top_votes: int
    tied: tuple[Hashable, ...] = ()

    @property
    def is_majority(self) -> bool:
        return self.outcome == MAJORITY

    @property
    def is_tie(self) -> bool:
        return self.outcome == TIE


def majority(votes: Iterable[Hashable | None]) -> Consensus:
    """The label with more votes than any other label (missing votes, None or NaN, are ignored).

    With three binary votes, 2 of 3 wins. When two or more labels share the highest count the
    outcome is ``"tie"`` and no label is chosen; with no votes at all it is ``"no votes"``.
    For more than two labels this is a plurality: 2 of A, 1 of B and 1 of C elect A.
    """
    counts = Counter(vote for vote in votes if not _is_missing(vote))
    total = sum(counts.values())
    if total == 0:
        return Consensus(outcome=NO_VOTES, label=None, votes=0, top_votes=0)
    top = max(counts.values())
    leaders = tuple(label for label, count in counts.items() if count == top)
    if len(leaders) > 1:
        return Consensus(outcome=TIE, label=None, votes=total, top_votes=top, tied=leaders)
    return Consensus(outcome=MAJORITY, label=leaders[0], votes=total, top_votes=top)


# Binary votes from their counts: `votes` cast, `hits` of them hits (ints or numpy arrays).


def has_majority(votes, hits):
    """Whether the votes elect a verdict: at least one vote and not an even split."""
    return (votes > 0) & (2 * hits != votes)


def majority_hit(votes, hits):
    """The elected verdict where `has_majority` holds: more hits than misses."""
    return 2 * hits > votes


def is_tie(votes, hits):
    """An even split of at least one vote: a tie, never guessed."""
    return (votes > 0) & (2 * hits == votes)


def consensus_cell(hits: int, votes: int) -> int | str:
    """The consensus as an export writes it: 1 or 0, "tie", or "none" without votes."""
    if not votes:
        return "none"
    if 2 * hits == votes:
        return "tie"
    return int(2 * hits > votes)
