"""Leaderboard rows of finished runs, computed once and then read back.

Scoring a full-scale board reads about 160,000 verdicts and bootstraps every system; finished
runs' verdicts never change, so the page keeps the rows in `StoredBoard` the first time they
are computed. A board with a run that is not finished is always computed afresh and never
stored.
"""

import hashlib
import json
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Q

from annotation.models import System
from judging.models import JudgeTask
from judging.scoring import Profile
from leaderboard.boards.selectors.runs import BoardRuns
from leaderboard.boards.selectors.scores import leaderboard_rows
from leaderboard.models import StoredBoard

# Raise whenever the scorer or the shape of a leaderboard row changes: rows stored by an
# older scorer are then recomputed instead of shown.
SCORING_VERSION = 2


def _fingerprint(board: BoardRuns) -> str:
    """What the rows depend on that could still move: the runs' tasks, their outcomes and
    their systems (an administrator repairing data, or tasks re-attached to a run). Two
    queries."""
    done, failed = JudgeTask.Status.DONE, JudgeTask.Status.FAILED
    tasks = JudgeTask.objects.filter(run_id__in=board.run_ids).aggregate(
        tasks=Count("pk"),
        done=Count("pk", filter=Q(status=done)),
        failed=Count("pk", filter=Q(status=failed)),
        last=Max("pk"),
    )
    systems = sorted(
        System.objects.filter(judge_runs__in=board.run_ids)
        .values_list("pk", "judge_runs")
        .distinct()
    )
    described = json.dumps({"tasks": tasks, "systems": systems}, sort_keys=True)
    return hashlib.sha256(described.encode()).hexdigest()


def _with_current_kinds(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # A system can be re-labelled human or LLM after the run; that is not a score, so it is
    # read fresh rather than frozen with the numbers.
    kinds = dict(
        System.objects.filter(name__in=[row["system"] for row in rows]).values_list("name", "kind")
    )
    for row in rows:
        kind = kinds.get(row["system"], row["kind"])
        row["kind"], row["is_human"] = kind, kind == System.Kind.HUMAN
    return rows


def stored_leaderboard_rows(*, board: BoardRuns, profile: str) -> list[dict[str, Any]]:
    """`leaderboard_rows(board, profile)`, from storage when every run is finished and the
    rows were computed before by this scorer on the same tasks; otherwise computed (and,
    when every run is finished, stored). Four queries when stored, whatever the size."""
    profile = Profile(profile)
    if not board.finished:
        return leaderboard_rows(board=board, profile=profile)
    fingerprint = _fingerprint(board)
    stored = (
        StoredBoard.objects.filter(
            runs=board.key, profile=profile, scoring=SCORING_VERSION, fingerprint=fingerprint
        )
        .values_list("rows", flat=True)
        .first()
    )
    if stored is not None:
        return _with_current_kinds(stored)
    rows = leaderboard_rows(board=board, profile=profile)
    try:
        # Two first views at once compute the same rows; whichever stores last wins, and
        # neither fails.
        with transaction.atomic():
            StoredBoard.objects.update_or_create(
                runs=board.key,
                profile=profile,
                defaults={"scoring": SCORING_VERSION, "fingerprint": fingerprint, "rows": rows},
            )
    except IntegrityError:
        pass
    return rows
