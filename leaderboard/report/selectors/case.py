"""One response of a review round laid out for a researcher weighing a disagreement: the
dialogue, the response, the whole rubric the round froze, and per criterion the judge's
verdict and reasoning beside the experts' votes and notes (under their pseudonyms)."""

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from annotation.consensus import has_majority, majority_hit
from annotation.models import Criterion, ReviewItem, ReviewRound
from annotation.selectors.review import current_votes
from judging.models import JudgeRun, JudgeTask, Verdict
from leaderboard.boards.selectors.runs import NEVER
from leaderboard.report.selectors.agreement import rater_pseudonyms


class CaseNotInRound(Exception):
    """The response asked for is not one of the round's."""


@dataclass
class ExpertVote:
    rater: str  # the round's pseudonym, never a name
    hit: bool
    note: str


@dataclass
class CriterionRow:
    pk: int
    position: int
    text: str
    ability: str  # the label as in the data; pages put it in the reader's language
    category: str
    weight: int | None
    judge: bool | None  # None: no verdict of the chosen task
    reasoning: str
    votes: list[ExpertVote] = field(default_factory=list)

    @property
    def hits(self) -> int:
        return sum(vote.hit for vote in self.votes)

    @property
    def majority(self) -> bool | None:
        """The experts' majority verdict; None for a tie or without votes."""
        votes, hits = len(self.votes), self.hits
        return bool(majority_hit(votes, hits)) if has_majority(votes, hits) else None

    @property
    def disagrees(self) -> bool:
        return self.judge is not None and self.majority is not None and self.judge != self.majority


@dataclass
class CaseView:
    item: ReviewItem
    task: JudgeTask | None
    criteria: list[CriterionRow]
    comments: list[tuple[str, str]]  # (pseudonym, overall comment), non-empty ones


def _chosen_task(runs: Sequence[JudgeRun], response: int) -> JudgeTask | None:
    """The task whose verdicts stand for the response, chosen as the agreement report
    chooses it (`round_tasks`): the done task that finished last, else the last task."""
    tasks = JudgeTask.objects.requested().filter(
        run__in=[run.pk for run in runs], response_id=response
    )
    ranked = sorted(
        tasks, key=lambda t: (t.status == JudgeTask.Status.DONE, t.finished or NEVER, t.pk)
    )
    return ranked[-1] if ranked else None


def disagreement_case(*, round_: ReviewRound, runs: Sequence[JudgeRun], response: int) -> CaseView:
    """The response `response` of the round, judged in `runs`. Raises CaseNotInRound.
    A fixed number of queries (about seven) whatever the size of the rubric."""
    item = (
        ReviewItem.objects.filter(round=round_, response_id=response)
        .select_related("response__case__scenario", "response__system", "rubric_version")
        .first()
    )
    if item is None:
        raise CaseNotInRound(response)
    task = _chosen_task(runs, response)
    verdicts: dict[int, tuple[bool, str]] = {}
    # Only verdicts on the rubric version the round froze compare with the experts' votes.
    if (
        task is not None
        and task.status == JudgeTask.Status.DONE
        and task.rubric_version_id == item.rubric_version_id
    ):
        verdicts = {
            criterion: (hit, reasoning)
            for criterion, hit, reasoning in Verdict.objects.filter(task=task).values_list(
                "criterion_id", "hit", "reasoning"
            )
        }
    pseudonym = rater_pseudonyms(round_=round_)
    votes: dict[int, list[ExpertVote]] = defaultdict(list)
    comments: dict[str, str] = {}
    for criterion, expert, hit, note, comment in (
        current_votes(round_=round_)
        .filter(assignment__item=item)
        .order_by("assignment__expert_id", "criterion_id")
        .values_list(
            "criterion_id", "assignment__expert_id", "hit", "note", "assignment__overall_comment"
        )
    ):
        name = pseudonym.get(expert, "?")
        votes[criterion].append(ExpertVote(name, hit, note))
        if comment:
            comments[name] = comment
    rows = [
        CriterionRow(
            pk=pk,
            position=position,
            text=text,
            ability=ability,
            category=category,
            weight=weight,
            judge=verdicts[pk][0] if pk in verdicts else None,
            reasoning=verdicts[pk][1] if pk in verdicts else "",
            votes=sorted(votes.get(pk, []), key=lambda vote: vote.rater),
        )
        for pk, position, text, ability, category, weight in Criterion.objects.filter(
            rubric_version=item.rubric_version_id
        )
        .order_by("position")
        .values_list(
            "pk", "position", "text", "ability__label", "ability__category__name_en", "weight"
        )
    ]
    return CaseView(item=item, task=task, criteria=rows, comments=sorted(comments.items()))
