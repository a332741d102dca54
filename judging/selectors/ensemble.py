"""An ensemble run's members' votes per unit (one criterion of one response) and what
they add up to: the judge-uncertainty signal. Reads only."""

from collections import defaultdict

from django.db.models import Count, Q

from judging import ensemble_vote
from judging.ensemble_vote import UnitVotes
from judging.models import JudgeAttempt, JudgeRun, MemberVerdict
from judging.models.runs import requested_tasks


def run_ensemble_size(run: JudgeRun) -> int | None:
    """How many members vote in the run; None for a run of a single judge."""
    ensemble = run.settings_snapshot.get("ensemble")
    return ensemble_vote.ensemble_size(ensemble) if ensemble else None


def unit_votes(*, run: JudgeRun) -> dict[tuple[int, int], UnitVotes]:
    """(task id, criterion id) -> the members' votes, for every unit at least one member
    answered; a member that gave no answer counts as failed. Empty for a single judge. One
    query."""
    size = run_ensemble_size(run)
    if size is None:
        return {}
    rows = (
        MemberVerdict.objects.filter(requested_tasks("task__"), task__run=run)
        .values("task_id", "criterion_id")
        .annotate(met=Count("pk", filter=Q(hit=True)), not_met=Count("pk", filter=Q(hit=False)))
    )
    return {
        (row["task_id"], row["criterion_id"]): UnitVotes(
            met=row["met"],
            not_met=row["not_met"],
            failed=size - row["met"] - row["not_met"],
        )
        for row in rows
    }


def ensemble_summary(*, run: JudgeRun) -> dict | None:
    """The run's ensemble in numbers (None for a single judge): its members, their calls,
    and its units: decided or undefined (no majority of all members), unanimous or split,
    and the mean share of members in the minority. Three queries."""
    size = run_ensemble_size(run)
    if size is None:
        return None
    ensemble = run.settings_snapshot["ensemble"]
    votes = list(unit_votes(run=run).values())
    calls: dict[str, int] = defaultdict(int)
    for outcome, count in (
        JudgeAttempt.objects.filter(task__run=run, member__gt=0)
        .values_list("outcome")
        .annotate(n=Count("pk"))
    ):
        key = "answered" if outcome == JudgeAttempt.Outcome.OK else "failed"
        calls[key] += count
    shares = [v.disagreement for v in votes if v.disagreement is not None]
    return {
        "kind": ensemble["kind"],
        "size": size,
        "members": [m["label"] for m in ensemble.get("members", [])]
        or [f"sample {n}" for n in range(1, size + 1)],
        "member_calls": {"answered": calls["answered"], "failed": calls["failed"]},
        "units": len(votes),
        "units_undefined": sum(1 for v in votes if v.verdict is None),
        "units_split": sum(1 for v in votes if v.met and v.not_met),
        # Undefined (None) when no unit was answered: never a 0 standing for "no data".
        "mean_disagreement": round(sum(shares) / len(shares), 4) if shares else None,
    }
