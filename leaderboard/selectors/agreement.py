from collections import defaultdict

from annotation.models import Criterion, ReviewItem, ReviewRound
from annotation.selectors.review import current_votes
from config.gc_pause import gc_paused
from judging.models import JudgeRun, JudgeTask, Verdict
from leaderboard.agreement import Unit, judge_disagrees


def rater_pseudonyms(*, round_: ReviewRound) -> dict[int, str]:
    """Stable per-round pseudonyms (E01, E02, ...) so reports and exports name no one."""
    ids = sorted(round_.experts.values_list("pk", flat=True))
    return {pk: f"E{index:02d}" for index, pk in enumerate(ids, start=1)}


def agreement_units(*, round_: ReviewRound, run: JudgeRun) -> list[Unit]:
    """One unit per (sampled response, criterion of the round's frozen rubric version),
    with the experts' current votes and the judge's verdict on the same criterion (None
    when the judge has none: a failed call, or a run on another rubric version). Five
    queries whatever the size."""
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
        votes[response][criterion].append(ballots.get((expert, hit)) or (f"E{expert}", hit))
    verdicts: dict[int, dict[int, bool]] = defaultdict(dict)
    # Only the sampled responses' verdicts: a run judges every response, a round samples 30%
    # of them, so this reads a third of the run.
    for response, criterion, hit in Verdict.objects.filter(
        task__run=run,
        task__status=JudgeTask.Status.DONE,
        task__response__review_items__round=round_,
    ).values_list("task__response_id", "criterion_id", "hit"):
        verdicts[response][criterion] = hit
    with gc_paused():
        return _units(items, criteria, votes, verdicts)


def _units(items, criteria, votes, verdicts) -> list[Unit]:
    units: list[Unit] = []
    append, make = units.append, Unit._make
    none: dict = {}
    for response, version, case, difficulty, primary, secondary, system in items:
        scenario = " / ".join(part for part in (primary, secondary) if part)
        judged = verdicts.get(response, none)
        voted = votes.get(response, none)
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
                    )
                )
            )
    return units


def disagreements(
    *,
    round_: ReviewRound,
    run: JudgeRun,
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
            for name in ("ability", "system", "difficulty")
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
            task__run=run,
            task__response_id__in={r for r, _ in keys},
            criterion_id__in={c for _, c in keys},
        ).values_list("task__response_id", "criterion_id", "reasoning")
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
