"""The corrected board: one entry point shared by the page, the API, the command and the
CSV export. For every system of a judge's board and a review round that corrects it: the
judge's score, the corrected score with its 95% interval, the judge's bias with its
interval, the labelled responses, lambda and the effective sample size, for the overall
score and every ability, category and difficulty; rank sets across systems; and the test
of equal bias. Numbers at full precision; undefined ones are None with a reason code.
"""

from annotation.models import Assignment, Benchmark, ReviewRound
from config.version import CONCORD_VERSION
from judging.scoring import Profile
from leaderboard.corrected.inputs import corrected_inputs
from leaderboard.selectors.boards import BoardRuns, judge_version_header
from leaderboard.stats.ppi import ALPHA, MIN_LABELLED, PPIMean
from leaderboard.stats.ppi_quantities import system_quantities
from leaderboard.stats.ppi_ranks import (
    DEFAULT_BIAS_MARGIN,
    bias_beyond,
    equal_bias_test,
    rank_sets,
)

METHOD = (
    "PPI++ mean per response (Angelopoulos, Duchi and Zrnic 2023), lambda estimated and "
    "clipped to [0, 1]; rank sets from Bonferroni-simultaneous intervals on case-paired "
    "differences; Wald test of equal bias with a case-clustered covariance"
)

STAT_KEYS = (
    "judge",
    "corrected",
    "ci_low",
    "ci_high",
    "bias",
    "bias_ci_low",
    "bias_ci_high",
    "labelled",
    "unlabelled",
    "lambda",
    "effective_n",
    "reason",
)


class RoundNotFound(Exception):
    """The round asked for is not this benchmark's; the message says which."""


def correcting_round(*, benchmark: Benchmark, ref: str) -> ReviewRound:
    """A round of the benchmark by id or name; none given: the newest with a submitted
    rating, else the newest."""
    rounds = ReviewRound.objects.filter(benchmark=benchmark).order_by("-created", "-pk")
    ref = (ref or "").strip()
    found = None
    if not ref:
        rated = rounds.filter(items__assignments__status=Assignment.Status.SUBMITTED)
        found = rated.first() or rounds.first()
    if ref:
        found = (rounds.filter(pk=int(ref)).first() if ref.isdigit() else None) or rounds.filter(
            name=ref
        ).first()
    if found is None:
        raise RoundNotFound(
            f"no review round {ref!r} in benchmark {benchmark.slug!r}"
            if ref
            else f"benchmark {benchmark.slug!r} has no review round"
        )
    return found


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


def corrected_board(
    *,
    board: BoardRuns,
    round_: ReviewRound,
    profile: str,
    bias_margin: float = DEFAULT_BIAS_MARGIN,
) -> dict:
    """The corrected board of `board` by `round_` under `profile` (see the module); the
    systems whose judge bias lies wholly outside +-`bias_margin` points are named."""
    profile = Profile(profile)
    inputs = corrected_inputs(board=board, round_=round_)
    rows, overall_fits = [], {}
    for system, pairs in inputs.pairs.items():
        quantities = system_quantities(pairs, profile)
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
    version = board.judge_version
    return {
        "benchmark": board.benchmark.slug,
        "runs": board.run_ids,
        "judge_version": None if version is None else judge_version_header(version),
        "profile": profile.value,
        "corrected_by": {
            "round": round_.name,
            "round_id": round_.pk,
            "sampled_responses": inputs.sampled,
            "labelled_responses": inputs.labelled,
            "not_labelled": inputs.not_labelled,
            "raters_per_item": round_.raters_per_item,
            "min_labelled": MIN_LABELLED,
            "confidence": 1 - ALPHA,
            "method": METHOD,
            # Whether unequal inclusion weights entered any score: never under a design
            # that gives every response of a system one chance.
            "sampling": {
                "design": inputs.design,
                "weighted": any(
                    fit.weighted
                    for _name, fits in rows
                    for fit in (
                        fits["overall"],
                        *(
                            f
                            for part in ("abilities", "categories", "difficulties")
                            for f in fits[part].values()
                        ),
                    )
                ),
            },
        },
        "rows": [
            {
                "system": name,
                "overall": stat_entry(by_name[name]["overall"]),
                **{
                    part: {key: stat_entry(fit) for key, fit in by_name[name][part].items()}
                    for part in ("abilities", "categories", "difficulties")
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
        "produced_by": f"Concord {CONCORD_VERSION}",
    }
