"""The corrected board's numbers from its inputs, with no Django: which responses are
labelled (the experts' majority of a full complement on every criterion), each response's
chance under the round's design, and the rows, rank sets and equal-bias test every reader
shows. The site reads the inputs from the database (`inputs`); `verify_bundle` reads them
from a bundle's files; both come here, so a bundle re-derives exactly the site's board."""

from collections import defaultdict

from annotation.consensus import has_majority, majority_hit
from judging.scoring import CaseVerdicts, Profile, ScoredCriterion
from leaderboard.stats.ppi import ALPHA, PPIMean
from leaderboard.stats.ppi_quantities import ResponsePair, system_quantities
from leaderboard.stats.ppi_ranks import (
    DEFAULT_BIAS_MARGIN,
    bias_beyond,
    equal_bias_test,
    rank_sets,
)

# Why a sampled response of the round is not labelled.
INCOMPLETE = "incomplete"  # a criterion lacks a full complement of votes, or is tied
OTHER_RUBRIC = "other_rubric"  # the board judged it on another rubric version
NOT_ON_BOARD = "not_on_board"  # the board has no done verdicts for it
REFERENCE = "reference"  # a reference item, not part of the random sample

PARTS = ("abilities", "categories", "difficulties")


def design_probabilities(items, population: dict) -> dict:
    """Each response's chance of being drawn. `items` are the round's items as (key, group,
    recorded probability, reference); `population` maps every response's key to its
    group. A drawn item keeps its own probability; any other response gets the one its
    group's drawn items share, or None when they do not share one (or none was recorded):
    no chance is guessed."""
    recorded: dict = {}
    shared: dict = defaultdict(set)
    for key, group, probability, reference in items:
        if reference:
            continue
        shared[group].add(probability)
        if probability is not None:
            recorded[key] = probability
    chance = {
        group: next(iter(values)) if len(values) == 1 else None for group, values in shared.items()
    }
    return {
        key: recorded[key] if key in recorded else chance.get(group)
        for key, group in population.items()
    }


def experts_case(judge: CaseVerdicts, criteria: list[tuple], counts: dict, full: int):
    """The experts' majority verdicts as a case, or None when a criterion has no majority
    of a full complement. `criteria`: (key, ability, category, weight, catastrophic) in
    rubric order; `counts`: (votes, hits) per criterion key."""
    scored = []
    for key, label, category, weight, catastrophic in criteria:
        votes, hits = counts.get(key, (0, 0))
        if votes < full or not has_majority(votes, hits):
            return None
        scored.append(
            ScoredCriterion(
                ability=label,
                category=category,
                weight=weight,
                is_catastrophic=catastrophic,
                hit=bool(majority_hit(votes, hits)),
            )
        )
    return CaseVerdicts(
        case_id=judge.case_id,
        difficulty=judge.difficulty,
        scenario=judge.scenario,
        criteria=tuple(scored),
    )


def stat_entry(fit: PPIMean) -> dict:
    """One score's numbers, in the command's and the API's keys."""
    interval, bias_interval = fit.interval(), fit.bias_interval()
    return {
        "judge": fit.judge,
        "corrected": fit.corrected,
        "ci_low": interval[0] if interval else None,
        "ci_high": interval[1] if interval else None,
        "bias": fit.bias,
        "bias_ci_low": bias_interval[0] if bias_interval else None,
        "bias_ci_high": bias_interval[1] if bias_interval else None,
        "labelled": fit.labelled,
        "unlabelled": fit.unlabelled,
        "lambda": fit.lam,
        "effective_n": fit.effective_n,
        "reason": fit.reason,
    }


def _order(item: tuple[str, PPIMean]) -> tuple:
    name, fit = item
    return (fit.corrected is None, -(fit.corrected or 0.0), name)


def board_numbers(
    pairs: dict[str, list[ResponsePair]],
    profile: Profile | str,
    *,
    bias_margin: float = DEFAULT_BIAS_MARGIN,
) -> dict:
    """The board's "rows", "ranks" and "bias_test" from each system's judged responses, and
    whether unequal inclusion weights entered any score ("weighted")."""
    profile = Profile(profile)
    rows, overall_fits = [], {}
    for system, system_pairs in pairs.items():
        quantities = system_quantities(system_pairs, profile)
        fits = {
            "overall": quantities.overall.fit(),
            "abilities": {k: v.fit() for k, v in quantities.abilities.items()},
            "categories": {k: v.fit() for k, v in quantities.categories.items()},
            "difficulties": {k: v.fit() for k, v in quantities.difficulties.items()},
        }
        overall_fits[system] = fits["overall"]
        rows.append((system, fits))
    ranks = rank_sets(overall_fits, alpha=ALPHA)
    bias = equal_bias_test(overall_fits)
    order = [name for name, _fit in sorted(overall_fits.items(), key=_order)]
    by_name = dict(rows)
    largest = None
    if bias.largest is not None:
        fit = overall_fits[bias.largest]
        low, high = fit.bias_interval()
        largest = {"system": bias.largest, "bias": fit.bias, "ci_low": low, "ci_high": high}
    return {
        "weighted": any(
            fit.weighted
            for _name, fits in rows
            for fit in (fits["overall"], *(f for part in PARTS for f in fits[part].values()))
        ),
        "rows": [
            {
                "system": name,
                "overall": stat_entry(by_name[name]["overall"]),
                **{
                    part: {key: stat_entry(fit) for key, fit in by_name[name][part].items()}
                    for part in PARTS
                },
                "rank_low": ranks.sets.get(name, (None, None))[0],
                "rank_high": ranks.sets.get(name, (None, None))[1],
            }
            for name in order
        ],
        "ranks": {
            "ranked": ranks.ranked,
            "pairs": ranks.pairs,
            "z": ranks.z,
            "reason": ranks.reason,
        },
        "bias_test": {
            "p_value": bias.p_value,
            "statistic": bias.statistic,
            "df": bias.df,
            "largest": largest,
            "reason": bias.reason,
            "margin": bias_margin,
            "beyond_margin": [
                {"system": name, "bias": value, "ci_low": low, "ci_high": high}
                for name, value, low, high in bias_beyond(overall_fits, margin=bias_margin)
            ],
        },
    }
