"""The scores corrected by the round's expert votes (PPI++) for the methods section: the
corrected board of the evidence's runs by the evidence's round, through the one entry point
the page, the API and the command share (`leaderboard.corrected.board.corrected_board`).
Present only when at least one system has a corrected overall score."""

from judging.scoring import Profile
from leaderboard.boards.selectors.runs import BoardRuns
from leaderboard.corrected.board import corrected_board
from leaderboard.evidence.selectors.pick import Evidence

# Of each system's overall entry, what the methods section states.
ENTRY_KEYS = (
    "judge",
    "corrected",
    "ci_low",
    "ci_high",
    "bias",
    "bias_ci_low",
    "bias_ci_high",
    "labelled",
    "effective_n",
    "reason",
)


def corrected_scores(evidence: Evidence, *, profile: str = Profile.HEARTBENCH.value) -> dict | None:
    """The corrected overall scores of every system judged in the evidence's runs, by its
    round, under `profile`; None when no system has one."""
    board = BoardRuns(benchmark=evidence.benchmark, runs=evidence.runs, chosen_by="runs")
    payload = corrected_board(board=board, round_=evidence.round, profile=profile)
    if all(row["overall"]["corrected"] is None for row in payload["rows"]):
        return None
    head = payload["corrected_by"]
    return {
        "profile": payload["profile"],
        "round": head["round"],
        "method": head["method"],
        "confidence": head["confidence"],
        "sampled_responses": head["sampled_responses"],
        "labelled_responses": head["labelled_responses"],
        "rows": [
            {"system": row["system"], **{key: row["overall"][key] for key in ENTRY_KEYS}}
            for row in payload["rows"]
        ],
        "bias_test": {
            "p_value": payload["bias_test"]["p_value"],
            "df": payload["bias_test"]["df"],
        },
    }
