from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from annotation.models import Criterion, ReviewItem, ReviewRound
from annotation.selectors.rater_pseudonyms import round_rater_pseudonyms
from annotation.selectors.review import current_votes
from config.gc_pause import gc_paused
from judging.models import JudgeRun, JudgeTask, Verdict
from leaderboard.boards.selectors.runs import NEVER
from leaderboard.report.agreement import FAILED, NOT_JUDGED, OTHER_VERSION, Unit, judge_disagrees


def rater_pseudonyms(*, round_: ReviewRound) -> dict[int, str]:
    """Each rater's random pseudonym for the round's benchmark (kept by annotation, which
    owns them), for everyone who rates or rated in the round, so reports and exports name
    no one."""
    return round_rater_pseudonyms(round_=round_)


@dataclass(frozen=True)
class RoundTask:
    """The task whose verdicts stand for one of the round's responses."""

    pk: int
    status: str
    rubric_version: int


def round_tasks(*, round_: ReviewRound, runs: Sequence[JudgeRun]) -> dict[int, RoundTask]:
    """Per response of the round judged in `runs`: the done task that finished last, or,
    when none is done, the last task (failed, pending or cancelled). Only tasks the runs
    were asked for: an anchor judged for the drift test alone is not evidence for the
    round. One query."""
    chosen: dict[int, tuple] = {}
    for pk, response, status, version, finished in (
        JudgeTask.objects.requested()
        .filter(run__in=[run.pk for run in runs], response__review_items__round=round_)
        .values_list("pk", "response_id", "status", "rubric_version_id", "finished")
    ):
        rank = (status == JudgeTask.Status.DONE, finished or NEVER, pk)
        if response not in chosen or rank > chosen[response][0]:
            chosen[response] = (rank, RoundTask(pk, status, version))
    return {response: task for response, (_, task) in chosen.items()}


def _round_frame(round_: ReviewRound) -> tuple[list, dict, dict]:
    """The round's items, the criteria of their frozen rubric versions and the experts'
    current votes, which every judge's units share. Four queries."""
    items = list(
        ReviewItem.objects.filter(round=round_).values_list(
            "response_id",
            "rubric_version_id",
            "response__case__external_id",
            "response__case__difficulty",
            "response__case__scenario__primary",
            "response__case__scenario__secondary",
            "response__system__name",
        )
    )
    criteria: dict[int, list[tuple[int, str, str]]] = defaultdict(list)
    for version, pk, label, category in (
        Criterion.objects.filter(rubric_version_id__in={row[1] for row in items})
        .order_by("rubric_version_id", "position")
        .values_list("rubric_version_id", "pk", "ability__label", "ability__category__name_en")
    ):
        criteria[version].append((pk, label, category))
    pseudonym = rater_pseudonyms(round_=round_)
    # The round's experts' (rater, hit) pairs, made once and shared by all ~140,000 votes:
    # fewer objects to build and for the garbage collector to walk.
    ballots = {(pk, hit): (name, hit) for pk, name in pseudonym.items() for hit in (False, True)}
    # Keyed by response, then criterion: one small dict per response instead of a tuple key
    # built for every one of the ~47,000 units.
    votes: dict[int, dict[int, list[tuple[str, bool]]]] = defaultdict(lambda: defaultdict(list))
    for response, criterion, expert, hit in current_votes(round_=round_).values_list(
        "assignment__item__response_id", "criterion_id", "assignment__expert_id", "hit"
    ):
        votes[response][criterion].append(ballots[(expert, hit)])
    return items, criteria, votes


def agreement_units(
    *,
    round_: ReviewRound,
    runs: Sequence[JudgeRun],
    tasks: dict[int, RoundTask] | None = None,
) -> list[Unit]:
    """One unit per (sampled response, criterion of the round's frozen rubric version),
    with the experts' current votes and the judge's verdict on the same criterion: the
    newest verdicts `runs` hold for the response (one run, or several of one judge version).
    Without a verdict, the unit says why: the call failed, no run judged the response, or
    it was judged on another rubric version than the round froze. Six queries whatever the
    size (five given `tasks`, the `round_tasks` of the same round and runs)."""
    frame = _round_frame(round_)
    if tasks is None:
        tasks = round_tasks(round_=round_, runs=runs)
    verdicts: dict[int, dict[int, bool]] = defaultdict(dict)
    # Only the sampled responses' chosen tasks: a run judges every response, a round samples
    # 30% of them, so this reads a third of the run.
    for response, criterion, hit in Verdict.objects.filter(
        task_id__in=[task.pk for task in tasks.values() if task.status == JudgeTask.Status.DONE]
    ).values_list("task__response_id", "criterion_id", "hit"):
        verdicts[response][criterion] = hit
    with gc_paused():
        return _units(*frame, verdicts, tasks)


def agreement_units_by_version(
    *, round_: ReviewRound, runs: Sequence[JudgeRun]
) -> dict[int, tuple[dict[int, RoundTask], list[Unit]]]:
    """Per judge version of `runs`: its round tasks (as `round_tasks` picks them among that
    version's runs) and its units (as `agreement_units` builds them). Six queries however
    many versions: the round's items, criteria and votes are read once for all of them."""
    frame = _round_frame(round_)
    version_of = {run.pk: run.judge_version_id for run in runs}
    chosen: dict[int, dict[int, tuple]] = defaultdict(dict)
    for pk, run, response, status, rubric, finished in (
        JudgeTask.objects.requested()
        .filter(run__in=list(version_of), response__review_items__round=round_)
        .values_list("pk", "run_id", "response_id", "status", "rubric_version_id", "finished")
    ):
        mine = chosen[version_of[run]]
        rank = (status == JudgeTask.Status.DONE, finished or NEVER, pk)
        if response not in mine or rank > mine[response][0]:
            mine[response] = (rank, RoundTask(pk, status, rubric))
    tasks = {
        version: {response: task for response, (_, task) in mine.items()}
        for version, mine in chosen.items()
    }
    done = {
        task.pk: version
        for version, mine in tasks.items()
        for task in mine.values()
        if task.status == JudgeTask.Status.DONE
    }
    verdicts: dict[int, dict[int, dict[int, bool]]] = defaultdict(lambda: defaultdict(dict))
    rows = Verdict.objects.filter(task_id__in=list(done)).values_list(
        "task_id", "task__response_id", "criterion_id", "hit"
    )
    for task, response, criterion, hit in rows:
        verdicts[done[task]][response][criterion] = hit
    with gc_paused():
        return {
            version: (mine, _units(*frame, verdicts[version], mine))
            for version, mine in tasks.items()
        }


def _no_verdict(task: RoundTask | None, frozen: int) -> str:
    """Why a unit of this response would lack a judge verdict."""
    if task is None:
        return NOT_JUDGED
    if task.status == JudgeTask.Status.DONE:
        return OTHER_VERSION if task.rubric_version != frozen else FAILED
    return FAILED if task.status == JudgeTask.Status.FAILED else NOT_JUDGED


def _units(items, criteria, votes, verdicts, tasks) -> list[Unit]:
    units: list[Unit] = []
    append, make = units.append, Unit._make
    none: dict = {}
    for response, version, case, difficulty, primary, secondary, system in items:
        scenario = " / ".join(part for part in (primary, secondary) if part)
        judged = verdicts.get(response, none)
        voted = votes.get(response, none)
        missing = _no_verdict(tasks.get(response), version)
        for criterion, ability, category in criteria[version]:
            ballots_here = voted.get(criterion)
            append(
                make(
                    (
                        response,
                        case,
                        criterion,
                        ability,
                        category,
                        difficulty,
                        scenario,
                        system,
                        judged.get(criterion),
                        tuple(sorted(ballots_here)) if ballots_here else (),
                        missing,
                    )
                )
            )
    return units


def disagreements(
    *,
    round_: ReviewRound,
    runs: Sequence[JudgeRun],
    units: list[Unit],
    filters: dict[str, str],
    limit: int | None = None,
) -> tuple[list[dict], int]:
    """Units where the judge and the human majority differ, with the judge's reasoning, the
    experts' notes and the criterion text, so a researcher can see whether the differences
    are systematic: the first `limit` of them (all without one), and how many there are.
    Three queries beyond the units, reading the texts of the rows returned only."""
    chosen = []
    for index in judge_disagrees(units):
        unit = units[index]
        direction = "judge_only" if unit.judge else "human_only"
        if filters.get("direction") and filters["direction"] != direction:
            continue
        if any(
            filters.get(name) and filters[name] != getattr(unit, name)
            for name in ("ability", "category", "system", "difficulty")
        ):
            continue
        chosen.append((unit, direction))
    total = len(chosen)
    chosen = chosen[:limit]
    keys = {(u.response, u.criterion) for u, _ in chosen}
    texts = dict(Criterion.objects.filter(pk__in={c for _, c in keys}).values_list("pk", "text"))
    reasoning = {
        (response, criterion): text
        for response, criterion, text in Verdict.objects.filter(
            task__run__in=[run.pk for run in runs],
            task__response_id__in={r for r, _ in keys},
            criterion_id__in={c for _, c in keys},
        )
        # The newest verdicts last, so they are the ones kept.
        .order_by("task__finished", "task_id")
        .values_list("task__response_id", "criterion_id", "reasoning")
        if (response, criterion) in keys
    }
    pseudonym = rater_pseudonyms(round_=round_)
    notes: dict[tuple[int, int], list[str]] = defaultdict(list)
    for response, criterion, expert, hit, note in (
        current_votes(round_=round_)
        .filter(assignment__item__response_id__in={r for r, _ in keys})
        .exclude(note="")
        .values_list(
            "assignment__item__response_id", "criterion_id", "assignment__expert_id", "hit", "note"
        )
    ):
        if (response, criterion) in keys:
            label = "hit" if hit else "miss"
            notes[(response, criterion)].append(f"{pseudonym.get(expert, '?')} ({label}): {note}")
    rows = [
        {
            "unit": unit,
            "direction": direction,
            "criterion": texts.get(unit.criterion, ""),
            "reasoning": reasoning.get((unit.response, unit.criterion), ""),
            "notes": notes.get((unit.response, unit.criterion), []),
            "hits": sum(hit for _, hit in unit.votes),
        }
        for unit, direction in chosen
    ]
    return rows, total


def sampling_weights(
    *, round_: ReviewRound, units: Sequence[Unit], probability: dict[int, float] | None = None
) -> tuple[dict, list | None]:
    """The round's sampling design for the report, and each unit's weight: the inverse of
    its response's inclusion probability (read in one query unless given). None (no
    weighting) when the round was sampled before probabilities were recorded."""
    if probability is None:
        probability = dict(
            ReviewItem.objects.filter(round=round_).values_list(
                "response_id", "inclusion_probability"
            )
        )
    recorded = bool(probability) and all(p for p in probability.values())
    design = {"design": round_.sampling, "probabilities_recorded": recorded}
    if not recorded:
        return design, None
    return design, [1.0 / probability[unit.response] for unit in units]
