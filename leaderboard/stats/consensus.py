"""The human gold standard of one unit: the majority of the experts' votes, never a guessed tie."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Literal

from leaderboard.stats._labels import is_missing

MAJORITY: Literal["majority"] = "majority"
TIE: Literal["tie"] = "tie"
NO_VOTES: Literal["no votes"] = "no votes"

Outcome = Literal["majority", "tie", "no votes"]


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
    counts = Counter(vote for vote in votes if not is_missing(vote))
    total = sum(counts.values())
    if total == 0:
        return Consensus(outcome=NO_VOTES, label=None, votes=0, top_votes=0)
    top = max(counts.values())
    leaders = tuple(label for label, count in counts.items() if count == top)
    if len(leaders) > 1:
        return Consensus(outcome=TIE, label=None, votes=total, top_votes=top, tied=leaders)
    return Consensus(outcome=MAJORITY, label=leaders[0], votes=total, top_votes=top)
