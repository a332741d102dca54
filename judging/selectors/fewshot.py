"""Few-shot proposals from a round's calibration part: where a judge version's finished run
disagrees with what the experts settled (an adjudication, or unanimous votes), on the
round's calibration items only. Held-out items are never read for them: those are what
the derived version will be judged on."""

from collections import defaultdict
from dataclasses import dataclass
from dataclasses import replace as dc_replace

from django.utils.translation import gettext as _

from annotation.models import Adjudication, Criterion, ReviewItem, ReviewRound
from annotation.selectors.review import current_votes
from judging.fewshot import DEFAULT_BUDGET, Candidate, choose, example_tokens
from judging.models import JudgeRun, JudgeTask, JudgeVersion, Verdict
from judging.prompting import examples_language


class NoProposals(Exception):
    """Nothing can be proposed; the message says why."""


@dataclass(frozen=True)
class Proposals:
    version: JudgeVersion
    round_: ReviewRound
    run: JudgeRun
    budget: int
    language: str
    candidates: list[Candidate]  # every settled calibration disagreement
    chosen: list[Candidate]  # those proposed within the budget

    @property
    def tokens(self) -> int:
        return sum(c.tokens for c in self.chosen)


def fewshot_run(*, version: JudgeVersion, round_: ReviewRound) -> JudgeRun | None:
    """The version's newest finished judge run on the round's benchmark."""
    return (
        JudgeRun.objects.finished()
        .filter(judge_version=version, benchmark_id=round_.benchmark_id)
        .order_by("-finished", "-pk")
        .first()
    )


def _settled(items: dict[int, ReviewItem]) -> dict[tuple[int, int], tuple[bool, str, list]]:
    """(item, criterion) -> (the experts' verdict, how it was settled, their notes), for
    adjudicated units and units whose (two or more) votes agree."""
    votes: dict[tuple[int, int], list[tuple[bool, str]]] = defaultdict(list)
    for item, criterion, hit, note in (
        current_votes(round_=next(iter(items.values())).round)
        .filter(assignment__item_id__in=list(items))
        .order_by("assignment__expert_id")
        .values_list("assignment__item_id", "criterion_id", "hit", "note")
    ):
        votes[(item, criterion)].append((hit, note.strip()))
    settled = {}
    for key, ballots in votes.items():
        hits = {hit for hit, _ in ballots}
        if len(ballots) >= 2 and len(hits) == 1:
            settled[key] = (hits.pop(), "unanimous", [n for _, n in ballots if n])
    for item, criterion, decision, note in Adjudication.objects.filter(
        item_id__in=list(items), criterion__isnull=False, decision__isnull=False
    ).values_list("item_id", "criterion_id", "decision", "note"):
        notes = [n for _, n in votes.get((item, criterion), ()) if n]
        settled[(item, criterion)] = (decision, "adjudicated", [*notes, note.strip()])
    return settled


def fewshot_proposals(
    *, version: JudgeVersion, round_: ReviewRound, budget: int = DEFAULT_BUDGET
) -> Proposals:
    """The calibration disagreements of `version` on `round_` and the examples proposed
    among them within `budget` tokens. Raises NoProposals when the round has no
    calibration part or the version no finished run on its benchmark."""
    items = {
        item.pk: item
        for item in ReviewItem.objects.filter(
            round=round_, part=ReviewItem.Part.CALIBRATION
        ).select_related("round", "response__case")
    }
    if not round_.calibration_share or not items:
        raise NoProposals(
            _("The round %(round)s has no calibration part to learn from.") % {"round": round_.name}
        )
    run = fewshot_run(version=version, round_=round_)
    if run is None:
        raise NoProposals(
            _("%(judge)s has no finished run on this benchmark yet: run it first.")
            % {"judge": version.label}
        )
    language = examples_language(version.prompt.language if version.prompt else "en")
    by_response = {item.response_id: item for item in items.values()}
    tasks = {
        pk: response
        for pk, response, rubric in JudgeTask.objects.requested()
        .filter(run=run, status=JudgeTask.Status.DONE, response_id__in=list(by_response))
        .values_list("pk", "response_id", "rubric_version_id")
        if rubric == by_response[response].rubric_version_id
    }
    judged: dict[tuple[int, int], bool] = {}
    for task, criterion, hit in Verdict.objects.filter(task_id__in=list(tasks)).values_list(
        "task_id", "criterion_id", "hit"
    ):
        judged[(by_response[tasks[task]].pk, criterion)] = hit
    settled = _settled(items)
    criteria = {
        c.pk: c
        for c in Criterion.objects.filter(pk__in={c for _, c in settled}).select_related("ability")
    }
    candidates = []
    for (item_id, criterion_id), (hit, how, notes) in sorted(settled.items()):
        judge_hit = judged.get((item_id, criterion_id))
        if judge_hit is None or judge_hit == hit:
            continue
        item, criterion = items[item_id], criteria[criterion_id]
        candidate = Candidate(
            item=item_id,
            item_code=item.code,
            criterion=criterion_id,
            ability=criterion.ability.label,
            criterion_text=criterion.text,
            dialogue=item.response.case.dialogue,
            response=item.response.text,
            expert_hit=hit,
            judge_hit=judge_hit,
            how=how,
            explanation=" ".join(notes),
            language=language,
        )
        candidates.append(dc_replace(candidate, tokens=example_tokens(candidate, language)))
    return Proposals(
        version=version,
        round_=round_,
        run=run,
        budget=budget,
        language=language,
        candidates=candidates,
        chosen=choose(candidates, budget),
    )
