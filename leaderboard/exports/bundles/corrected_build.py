"""The corrected board of a published leaderboard, for its bundle: the correcting round's
items (the rubric versions they froze, reference or drawn, the inclusion probability each
was recorded with), its votes as they stood when the board was published, its sampling
frame, and the board itself, computed from those files by the code `verify_bundle` runs
(`leaderboard.exports.bundles.corrected`)."""

import json

from annotation.models import Criterion, ReviewItem
from annotation.selectors.case_history import CaseLabelsThen
from annotation.selectors.round_history import round_as_of
from annotation.selectors.vote_history import votes_as_of
from config.version import CONCORD_VERSION
from leaderboard.corrected.board import METHOD
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.corrected import corrected_numbers
from leaderboard.exports.bundles.frame import frame_files
from leaderboard.exports.bundles.records import policy_state_as_of
from leaderboard.models import GatePolicy, LeaderboardSnapshot
from leaderboard.report.selectors.agreement import rater_pseudonyms
from leaderboard.stats.ppi import ALPHA, MIN_LABELLED
from leaderboard.stats.ppi_ranks import DEFAULT_BIAS_MARGIN


def corrected_inputs_files(
    snapshot: LeaderboardSnapshot, labels: CaseLabelsThen
) -> tuple[dict[str, bytes], set[int]]:
    """The correcting round's files, and the rubric versions its items froze."""
    round_ = snapshot.corrected_by
    # The round as the board was published with it: its items, chances and reference
    # items then.
    then = round_as_of(round_=round_, when=snapshot.created)
    items = [
        (pk, qid, system, version, number, pk in then.references, then.chances[pk], rank)
        for pk, qid, system, version, number, rank in ReviewItem.objects.filter(round=round_)
        .order_by("response_id")
        .values_list(
            "response_id",
            "response__case__external_id",
            "response__system__name",
            "rubric_version_id",
            "rubric_version__number",
            "hand_out_rank",
        )
        if then.has(pk)
    ]
    by_response = {row[0]: (row[1], row[2]) for row in items}
    positions = dict(
        Criterion.objects.filter(rubric_version_id__in={row[3] for row in items}).values_list(
            "pk", "position"
        )
    )
    names = rater_pseudonyms(round_=round_)
    votes = [
        [*by_response[response], positions[criterion], names[expert], int(hit)]
        for response, criterion, expert, hit in votes_as_of(round_=round_, when=snapshot.created)
        if criterion in positions
    ]
    files = {
        layout.CORRECTED_ITEMS: layout.csv_bytes(
            layout.CORRECTED_ITEM_FIELDS,
            [
                (qid, system, number, int(reference), "" if p is None else p, response)
                for response, qid, system, _v, number, reference, p, _rank in items
            ],
        ),
        layout.CORRECTED_VOTES: layout.csv_bytes(layout.VOTE_FIELDS, votes),
    }
    frame, sampling = frame_files(
        round_, [(row[0], row[7]) for row in items], layout.CORRECTED_DIR, then, labels
    )
    files.update(frame)
    files[layout.CORRECTED] = layout.json_bytes({"sampling_frame": sampling})
    return files, {row[3] for row in items}


def corrected_board_file(
    snapshot: LeaderboardSnapshot, files: dict[str, bytes], rubrics, taxonomy, board: dict
) -> dict[str, bytes]:
    """The corrected board and the weights it used, from the bundle's `files` (its verdicts,
    rubrics and the correcting round's files); `board`: the board's header (runs, judge)."""
    round_ = snapshot.corrected_by
    # The bias margin as the policy stood at publication (the default without a condition).
    state, _changed = policy_state_as_of(snapshot.benchmark, snapshot.created)
    margin = (
        state["max_bias_points"]
        if "max_bias_points" in state
        else GatePolicy.objects.filter(benchmark=snapshot.benchmark)
        .values_list("max_bias_points", flat=True)
        .first()
    )
    header = {
        "profile": snapshot.profile,
        "raters_per_item": round_.raters_per_item,
        "design": round_.sampling,
        "margin": DEFAULT_BIAS_MARGIN if margin is None else margin,
    }
    numbers = corrected_numbers(files, rubrics, taxonomy, header)
    frame = json.loads(files[layout.CORRECTED])["sampling_frame"]
    record = {
        "benchmark": snapshot.benchmark.slug,
        "runs": board["runs"],
        "judge_version": board["judge_version"],
        "profile": snapshot.profile,
        "corrected_by": {
            "round": round_.name,
            "round_id": round_.pk,
            **numbers["corrected_by"],
            "raters_per_item": round_.raters_per_item,
            "min_labelled": MIN_LABELLED,
            "confidence": 1 - ALPHA,
            "method": METHOD,
            "votes_as_of": snapshot.created.isoformat(),
            "sampling_frame": frame,
        },
        "rows": numbers["rows"],
        "ranks": numbers["ranks"],
        "bias_test": numbers["bias_test"],
        "produced_by": f"Concord {CONCORD_VERSION}",
    }
    return {
        layout.CORRECTED: layout.json_bytes(record),
        layout.CORRECTED_WEIGHTS: layout.csv_bytes(
            layout.CORRECTED_WEIGHT_FIELDS, numbers["weights"]
        ),
    }
