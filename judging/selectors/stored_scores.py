"""Leaderboard rows of finished runs, computed once and then read back.

Scoring a full-scale run reads about 160,000 verdicts and bootstraps every system; a finished
run's verdicts never change, so the page keeps the rows in `StoredLeaderboard` the first time
they are computed. A run that is not finished is always computed afresh and never stored.
"""

import hashlib
import json
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Q

from annotation.models import System
from judging.models import JudgeRun, JudgeTask, StoredLeaderboard
from judging.scoring import Profile
from judging.selectors.scores import leaderboard_rows

# Raise whenever the scorer or the shape of a leaderboard row changes: rows stored by an
# older scorer are then recomputed instead of shown.
SCORING_VERSION = 1


def _fingerprint(run: JudgeRun) -> str:
    """What the rows depend on that could still move: the run's tasks, their outcomes and
    its systems (an administrator repairing data, or tasks re-attached to the run). Two
    queries."""
    done, failed = JudgeTask.Status.DONE, JudgeTask.Status.FAILED
    tasks = JudgeTask.objects.filter(run=run).aggregate(
        tasks=Count("pk"),
        done=Count("pk", filter=Q(status=done)),
        failed=Count("pk", filter=Q(status=failed)),
        last=Max("pk"),
    )
    systems = sorted(run.systems.values_list("pk", flat=True))
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


def stored_leaderboard_rows(*, run: JudgeRun, profile: str) -> list[dict[str, Any]]:
    """`leaderboard_rows(run, profile)`, from storage when the run is finished and its rows
    were computed before by this scorer on the same tasks; otherwise computed (and, for a
    finished run, stored). Four queries when stored, whatever the size of the run."""
    profile = Profile(profile)
    if run.status != JudgeRun.Status.FINISHED:
        return leaderboard_rows(run=run, profile=profile)
    fingerprint = _fingerprint(run)
    stored = (
        StoredLeaderboard.objects.filter(
            run=run, profile=profile, scoring=SCORING_VERSION, fingerprint=fingerprint
        )
        .values_list("rows", flat=True)
        .first()
    )
    if stored is not None:
        return _with_current_kinds(stored)
    rows = leaderboard_rows(run=run, profile=profile)
    try:
        # Two first views at once compute the same rows; whichever stores last wins, and
        # neither fails.
        with transaction.atomic():
            StoredLeaderboard.objects.update_or_create(
                run=run,
                profile=profile,
                defaults={"scoring": SCORING_VERSION, "fingerprint": fingerprint, "rows": rows},
            )
    except IntegrityError:
        pass
    return rows
