"""The corrected board as a table (`corrected.csv` among the exports): one row per system
and score (overall, each ability, category and difficulty), at full precision."""

from collections.abc import Iterator

from annotation.models import ReviewRound
from judging.models import JudgeRun
from judging.scoring import Profile
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.corrected.board import corrected_board

CORRECTED_HEADER = (
    "benchmark",
    "round",
    "runs",
    "profile",
    "system",
    "score",
    "name",
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
    "rank_low",
    "rank_high",
)

_NUMBERS = CORRECTED_HEADER[7:19]
_PARTS = (("abilities", "ability"), ("categories", "category"), ("difficulties", "difficulty"))


def corrected_rows(*, round_: ReviewRound, run: JudgeRun, profile: Profile) -> Iterator[list]:
    board = board_runs(benchmark=run.benchmark, runs=[run.pk])
    payload = corrected_board(board=board, round_=round_, profile=profile)
    head = [
        payload["benchmark"],
        round_.name,
        ",".join(map(str, payload["runs"])),
        payload["profile"],
    ]
    for row in payload["rows"]:
        ranks = [row["rank_low"], row["rank_high"]]
        entries = [("overall", "", row["overall"])] + [
            (score, name, entry) for part, score in _PARTS for name, entry in row[part].items()
        ]
        for score, name, entry in entries:
            yield [*head, row["system"], score, name, *(entry[key] for key in _NUMBERS), *ranks]
