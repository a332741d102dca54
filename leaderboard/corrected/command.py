"""What `manage.py leaderboard --corrected-by ROUND` prints: the corrected board as JSON
(full precision), or a table for people."""

import json
import math

from django.core.management.base import CommandError

from annotation.models import Benchmark
from leaderboard.boards.selectors.runs import BoardRuns
from leaderboard.corrected.board import RoundNotFound, corrected_board, correcting_round
from leaderboard.corrected.wording import reason_words
from leaderboard.management.cli import render_table

MISSING = "-"


def _number(value: float | None) -> str:
    return MISSING if value is None or not math.isfinite(value) else f"{value:.2f}"


def _interval(entry: dict, low: str, high: str) -> str:
    if entry[low] is None:
        return MISSING
    return f"{_number(entry[low])} to {_number(entry[high])}"


def _ranks(row: dict) -> str:
    if row["rank_low"] is None:
        return MISSING
    if row["rank_low"] == row["rank_high"]:
        return str(row["rank_low"])
    return f"{row['rank_low']}-{row['rank_high']}"


def corrected_table(payload: dict) -> list[str]:
    head = payload["corrected_by"]
    out = [
        f"Benchmark {payload['benchmark']}, runs {', '.join(map(str, payload['runs']))}, "
        f"profile {payload['profile']}, corrected by round {head['round']!r}: "
        f"{head['labelled_responses']} labelled of {head['sampled_responses']} sampled responses",
        "",
    ]
    if not payload["rows"]:
        return [*out, "The runs have no systems."]
    out += render_table(
        ["ranks", "system", "judge", "corrected", "95% CI", "bias", "bias 95% CI", "n", "lambda"],
        [
            [
                _ranks(row),
                row["system"],
                _number(row["overall"]["judge"]),
                _number(row["overall"]["corrected"]),
                _interval(row["overall"], "ci_low", "ci_high"),
                _number(row["overall"]["bias"]),
                _interval(row["overall"], "bias_ci_low", "bias_ci_high"),
                str(row["overall"]["labelled"]),
                _number(row["overall"]["lambda"]),
            ]
            for row in payload["rows"]
        ],
    )
    test = payload["bias_test"]
    if test["p_value"] is None:
        out.append(f"equal-bias test: undefined ({reason_words(test['reason'])})")
    else:
        out.append(f"equal-bias test: p = {test['p_value']:.4g} (df {test['df']})")
    notes = [
        f"  {row['system']}: {reason_words(row['overall']['reason'])}"
        for row in payload["rows"]
        if row["overall"]["reason"]
    ]
    if notes:
        out += ["", "undefined corrected scores:", *notes]
    return out


def corrected_output(
    benchmark: Benchmark, board: BoardRuns, round_ref: str, profile: str, format: str
) -> str:
    try:
        round_ = correcting_round(benchmark=benchmark, ref=round_ref)
    except RoundNotFound as exc:
        raise CommandError(str(exc)) from exc
    payload = corrected_board(board=board, round_=round_, profile=profile)
    if format == "json":
        return json.dumps(payload, ensure_ascii=False)
    return "\n".join(corrected_table(payload))
