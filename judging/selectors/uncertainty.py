"""How unsure a finished judge run is of each response: the signal a review round may
sample by (annotation.review_sampling.probabilities_by_size). Reads only."""

from collections import defaultdict

from judging.models import JudgeRun, JudgeTask, Verdict
from judging.models.runs import requested_tasks
from judging.selectors.ensemble import run_ensemble_size, unit_votes

ENSEMBLE, SECOND_JUDGE = "ensemble", "second_judge"


def response_uncertainty(*, run: JudgeRun, second: JudgeRun | None = None) -> dict[int, float]:
    """Response id -> its uncertainty in [0, 1], for the responses the run judged.

    With a second run: the share of the criteria both judged where the two judges' verdicts
    differ. Without: for an ensemble run, the mean over the response's criteria of the
    members' minority share (0 when every member agrees, 0.5 at a tie); empty for a single
    judge, which says nothing about its own doubt."""
    if second is not None:
        return _judges_disagree(run, second)
    if run_ensemble_size(run) is None:
        return {}
    response_of = dict(
        JudgeTask.objects.requested()
        .filter(run=run, response__isnull=False)
        .values_list("pk", "response_id")
    )
    shares: dict[int, list[float]] = defaultdict(list)
    for (task_id, _criterion), votes in unit_votes(run=run).items():
        share = votes.disagreement
        if share is not None and task_id in response_of:
            shares[response_of[task_id]].append(share)
    return {pk: sum(values) / len(values) for pk, values in shares.items()}


def _verdicts(run: JudgeRun) -> dict[tuple[int, int], bool]:
    rows = Verdict.objects.filter(
        requested_tasks("task__"), task__run=run, task__response__isnull=False
    ).values_list("task__response_id", "criterion_id", "hit")
    return {(response, criterion): hit for response, criterion, hit in rows}


def _judges_disagree(run: JudgeRun, second: JudgeRun) -> dict[int, float]:
    first, other = _verdicts(run), _verdicts(second)
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for key, hit in first.items():
        if key in other:
            tally = counts[key[0]]
            tally[0] += hit != other[key]
            tally[1] += 1
    return {pk: differ / total for pk, (differ, total) in counts.items()}
