"""The gate's decision for a judge version from every round it was judged on: one history
that no round resets (no Django here).

- The fixed rules (`point`, `lower_bound`) read only complete rounds: every item rated by
  the round's raters per item, with at least the policy's minimum raters. A round closed
  early, or short of raters, cannot be decided by them; when the newest round is such a
  round the gate refuses with a reason code. The decision pools the version's complete
  rounds: the pooled agreement, and its cluster-robust bound (leaderboard.stats.fixed_gate)
  with alpha spent over the looks, one look per complete round.
- The sequential rule runs one betting process over the rounds in opening order, each
  round contributing its settled prefix in hand-out order, so the wealth carries from round
  to round: a failure, once reached, stays, and a new round cannot shop for a pass.
- A round whose responses were drawn with unequal chances keeps each item's weight (the
  inverse of its chance), and the sequential rule weights its items by them
  (leaderboard.stats.sequential_weighted). Tallies recorded without the weights (before
  they were kept) cannot be weighted: the sequential rule refuses them; the fixed rules
  read them.
- Any round whose raters per item are below the policy's minimum, or whose raters could
  read the judge's verdicts, makes the evidence unusable: the refusal names it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from leaderboard.evidence.item_tallies import item_tallies, item_weights
from leaderboard.gate.refusals import (
    RATER_READS_VERDICTS,
    ROUND_INCOMPLETE,
    TOO_FEW_RATERS,
    UNEQUAL_CHANCES,
)
from leaderboard.stats.fixed_gate import clustered_bound
from leaderboard.stats.sequential import DEFAULT_ALPHA, sequential_history
from leaderboard.stats.sequential_weighted import chance_ratios, weighted_share

POINT, LOWER_BOUND, SEQUENTIAL = "point", "lower_bound", "sequential"


@dataclass(frozen=True)
class RoundTallies:
    """One round's evidence on one judge version: per item in hand-out order, how many of
    its units the judge and the majority agree on, of how many, and whether every unit has
    its full complement of votes."""

    round_id: int
    name: str
    raters_per_item: int
    per_item: tuple[tuple[int, int, bool], ...]
    most_units: int  # the most criteria of any item (the sequential scale)
    raters_read_verdicts: bool = False
    unequal_chances: bool = False  # its responses were drawn with unequal chances
    # With unequal chances: each item's weight (the inverse of its chance), as per_item.
    weights: tuple[float, ...] = ()

    @property
    def weighted(self) -> bool:
        return self.unequal_chances and len(self.weights) == len(self.per_item)

    def chance_ratios(self) -> tuple[float, ...] | None:
        return chance_ratios(self.weights) if self.weighted else None

    @property
    def complete(self) -> bool:
        return bool(self.per_item) and all(settled for _, _, settled in self.per_item)

    @property
    def complete_items(self) -> int:
        return sum(1 for _, _, settled in self.per_item if settled)

    def settled_prefix(self) -> list[tuple[int, int]]:
        prefix = []
        for agree, units, settled in self.per_item:
            if not settled:
                break
            prefix.append((agree, units))
        return prefix

    def as_dict(self) -> dict:
        return {
            "round_id": self.round_id,
            "round": self.name,
            "raters_per_item": self.raters_per_item,
            "items": len(self.per_item),
            "complete_items": self.complete_items,
            "complete": self.complete,
            "most_units": self.most_units,
            "raters_read_verdicts": self.raters_read_verdicts,
            "per_item": [list(each) for each in self.per_item],
            # Only when set, so rounds stored before it read the same.
            **({"unequal_chances": True} if self.unequal_chances else {}),
            **({"weights": list(self.weights)} if self.weights else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> RoundTallies:
        return cls(
            round_id=int(data["round_id"]),
            name=str(data["round"]),
            raters_per_item=int(data["raters_per_item"]),
            per_item=tuple((int(a), int(m), bool(s)) for a, m, s in data["per_item"]),
            most_units=int(data["most_units"]),
            raters_read_verdicts=bool(data.get("raters_read_verdicts", False)),
            unequal_chances=bool(data.get("unequal_chances", False)),
            weights=tuple(float(w) for w in data.get("weights") or ()),
        )


def round_tallies(
    units: Sequence,
    ranks: Mapping[int, int],
    *,
    round_id: int,
    name: str,
    raters_per_item: int,
    raters_read_verdicts: bool = False,
    unequal_chances: bool = False,
    weights: Sequence[float] | None = None,
) -> RoundTallies:
    """A round's tallies from its agreement units (leaderboard.report.agreement.Unit) and each
    response's hand-out rank. Units without a judge verdict or a majority count in neither
    total; an item is settled when each of its units has the round's votes. `weights` (per
    unit, the inverse of its response's chance) are kept per item when they differ."""
    items, most = item_tallies(units, ranks, raters_per_item)
    by_response = item_weights(units, weights) if unequal_chances else {}
    return RoundTallies(
        round_id=round_id,
        name=name,
        raters_per_item=raters_per_item,
        per_item=tuple((item.agree, item.units, item.settled) for item in items),
        most_units=most,
        raters_read_verdicts=raters_read_verdicts,
        unequal_chances=unequal_chances,
        weights=tuple(by_response[item.response] for item in items) if by_response else (),
    )


def _refusal(current: RoundTallies, rule: str, min_raters: int) -> str | None:
    if current.raters_read_verdicts:
        return RATER_READS_VERDICTS
    if current.raters_per_item < min_raters:
        return TOO_FEW_RATERS
    if rule != SEQUENTIAL and not current.complete:
        return ROUND_INCOMPLETE
    return None


def _usable(each: RoundTallies, min_raters: int) -> bool:
    return not each.raters_read_verdicts and each.raters_per_item >= min_raters


def _fixed(rounds, rule, threshold, alpha, min_raters) -> dict:
    pooled = [r for r in rounds if _usable(r, min_raters) and r.complete]
    tallies = [(a, m) for r in pooled for a, m, _ in r.per_item]
    bound = clustered_bound(tallies, threshold=threshold, look=max(1, len(pooled)), alpha=alpha)
    tested = bound.point if rule == POINT else bound.lower
    return {
        "looks": len(pooled),
        "pooled_rounds": [r.name for r in pooled],
        "pooled": bound.as_dict(),
        "point": bound.point,
        "lower_bound": bound.lower,
        "passed": tested is not None and tested >= threshold,
        "decision": None,
    }


def _sequential(rounds, threshold, alpha, min_raters) -> dict:
    used = [r for r in rounds if _usable(r, min_raters)]
    prefixes = [r.settled_prefix() for r in used]
    if not 0.0 < threshold < 1.0:
        return {"looks": len(used), "passed": False, "decision": None, "sequential": None}
    ratios = [r.chance_ratios() for r in used]
    result = sequential_history(
        prefixes,
        threshold=threshold,
        alpha=alpha,
        max_units=[r.most_units or None for r in used],
        ratios=ratios,
    )
    # The share the test reads: each item counted by its chance ratio (1 with equal chances).
    point = weighted_share(
        [pair for prefix in prefixes for pair in prefix],
        [
            ratio
            for prefix, given in zip(prefixes, ratios, strict=True)
            for ratio in (given or [1.0] * len(prefix))[: len(prefix)]
        ],
    )
    return {
        "looks": len(used),
        "pooled_rounds": [r.name for r in used],
        "point": point,
        "lower_bound": result.cs_low,
        "passed": result.decision == "pass",
        "decision": result.decision,
        "sequential": {
            **result.as_dict(),
            "items_in_history": sum(len(prefix) for prefix in prefixes),
        },
    }


def history_gate(
    rounds: Sequence[RoundTallies],
    *,
    rule: str,
    threshold: float,
    min_raters: int,
    alpha: float = DEFAULT_ALPHA,
) -> dict:
    """The gate's decision on a judge version's rounds, oldest first; the last is the round
    being evaluated. `refusal` is a code when the gate cannot decide on that round."""
    if not rounds:
        raise ValueError("the history needs at least the round being evaluated")
    current = rounds[-1]
    refusal = _refusal(current, rule, min_raters)
    # Unequal chances without the items' weights (tallies recorded before they were kept).
    unequal = [
        r.name for r in rounds if r.unequal_chances and not r.weighted and _usable(r, min_raters)
    ]
    extra = {}
    if rule == SEQUENTIAL and unequal and refusal is None:
        refusal, extra = UNEQUAL_CHANCES, {"unequal_chances_round": unequal[-1]}
    if rule == SEQUENTIAL:
        decided = _sequential(rounds, threshold, alpha, min_raters)
    else:
        decided = _fixed(rounds, rule, threshold, alpha, min_raters)
    if refusal:
        decided["passed"] = False
    return {
        **decided,
        **extra,
        "refusal": refusal,
        "min_raters": min_raters,
        "alpha": alpha,
        "rounds": [r.as_dict() for r in rounds],
    }
