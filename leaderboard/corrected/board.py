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
from leaderboard.boards.selectors.runs import BoardRuns, judge_version_header
from leaderboard.corrected.assemble import board_numbers
from leaderboard.corrected.inputs import corrected_inputs
from leaderboard.stats.ppi import ALPHA, MIN_LABELLED
from leaderboard.stats.ppi_ranks import DEFAULT_BIAS_MARGIN

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
    numbers = board_numbers(inputs.pairs, profile, bias_margin=bias_margin)
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
            "sampling": {"design": inputs.design, "weighted": numbers["weighted"]},
        },
        "rows": numbers["rows"],
        "ranks": numbers["ranks"],
        "bias_test": numbers["bias_test"],
        "produced_by": f"Concord {CONCORD_VERSION}",
    }
