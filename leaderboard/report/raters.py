"""The experts' side of the agreement report: their reliability among themselves and, per
rater, the human ceiling beside the judge. Pure (no Django)."""

import numpy as np

from leaderboard.stats import (
    Interval,
    Stat,
    fleiss_kappa,
    gwet_ac1_from_counts,
    krippendorff_alpha_from_counts,
    pairwise_agreement_from_counts,
)
from leaderboard.stats.reasons import NO_VOTES, RATER_NO_MAJORITY


def stat_value(stat: Stat, report_undefined: dict, name: str) -> float | None:
    """The value at full precision (pages round it), or None with the reason recorded."""
    if stat.value is None:
        report_undefined[name] = stat.reason
        return None
    return stat.value


def interval_value(interval: Interval, report_undefined: dict, name: str) -> list | None:
    if interval.low is None:
        report_undefined[name] = interval.reason
        return None
    return [interval.low, interval.high]


def human_statistics(encoded, undefined: dict) -> dict:
    voted = np.flatnonzero(encoded.votes)
    if not voted.size:
        undefined["humans"] = NO_VOTES
        return {
            "fleiss_kappa": None,
            "krippendorff_alpha": None,
            "gwet_ac1": None,
            "pairwise_agreement": None,
            "units": 0,
        }
    # Fleiss' kappa needs the same number of ratings per unit: the usual count only (of two
    # counts equally usual, the larger), every vote counted.
    per_count = np.bincount(encoded.votes[voted])
    usual = per_count.size - 1 - int(np.argmax(per_count[::-1]))
    complete = voted[encoded.votes[voted] == usual]
    fleiss = np.stack([encoded.votes - encoded.hits, encoded.hits], axis=1)[complete]
    # The other measures see a raters x units matrix: one vote per rater and unit, the last
    # when a rater voted twice on a unit.
    last = encoded.last
    hits = np.bincount(encoded.vote_unit[last & encoded.vote_hit], minlength=encoded.votes.size)
    rated = np.bincount(encoded.vote_unit[last], minlength=encoded.votes.size)
    counts = np.stack([rated - hits, hits], axis=1)[voted]
    return {
        "units": int(voted.size),
        "fleiss_kappa": stat_value(fleiss_kappa(fleiss), undefined, "humans.fleiss_kappa"),
        "fleiss_units": int(complete.size),
        "krippendorff_alpha": stat_value(
            krippendorff_alpha_from_counts(counts), undefined, "humans.krippendorff_alpha"
        ),
        "gwet_ac1": stat_value(gwet_ac1_from_counts(counts), undefined, "humans.gwet_ac1"),
        "pairwise_agreement": stat_value(
            pairwise_agreement_from_counts(counts), undefined, "humans.pairwise_agreement"
        ),
    }


def by_rater(encoded, undefined: dict) -> dict:
    """Per rater: agreement with the majority of the other raters (the human ceiling) and
    the judge's agreement with that rater, on the same units."""
    others = encoded.votes[encoded.vote_unit] - encoded.own_votes
    others_hits = encoded.hits[encoded.vote_unit] - encoded.own_hits
    decided = (others > 0) & (2 * others_hits != others)
    with_others = decided & ((2 * others_hits > others) == encoded.vote_hit)
    judge = encoded.judge[encoded.vote_unit]
    judged = judge >= 0
    judge_with = judged & ((judge == 1) == encoded.vote_hit)

    def per_rater(votes: np.ndarray) -> list[int]:
        return np.bincount(encoded.vote_rater[votes], minlength=len(encoded.raters)).tolist()

    compared, agreed = per_rater(decided), per_rater(with_others)
    judge_units, judge_agreed = per_rater(judged), per_rater(judge_with)
    result = {}
    for i, rater in enumerate(encoded.raters):
        a, b = compared[i], judge_units[i]
        if not (a or b):
            continue
        result[str(rater)] = {
            "units": b,
            "agreement_with_others": agreed[i] / a if a else None,
            "judge_agreement": judge_agreed[i] / b if b else None,
        }
        if not a:
            undefined[f"by_rater.{rater}"] = RATER_NO_MAJORITY
    return result
