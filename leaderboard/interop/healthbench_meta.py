"""A round's expert votes in HealthBench's meta-evaluation format (openai/simple-evals,
`healthbench_meta_eval.py`), so that its meta-eval and its physician agreement run on them.

One JSON object per line, one line per (review item, criterion) that at least `min_votes`
experts voted on:

- `prompt`: the case's dialogue as recorded (a list of `{role, content}` messages; a
  HealthBench prompt keeps its system/user/assistant roles, a HeartBench dialogue its A/B);
- `completion`: the response the experts rated;
- `rubric`: the criterion's text;
- `category`: the case's primary scene, the grouping the meta-eval reports metrics by (a
  HealthBench example's `theme:` tag as imported, a HeartBench case's `primary_scene`);
  the empty string when the case has none;
- `binary_labels`: each expert's current vote (true: met), in the order of
- `anonymized_physician_ids`: the experts' pseudonyms (sorted), never their names.

Three keys the meta-eval does not read tie a line back to Concord: `prompt_id` (the case's
question id), `item` (the review item's blind code) and `criterion_position`.

The meta-eval compares each expert with the others on the same line (and a grader with all
of them), so the default `min_votes` is two, as for the judge panel's statistics: a line
with one vote has no pair to compare.
"""

from collections import defaultdict
from dataclasses import dataclass

from annotation.models import ReviewItem, ReviewRound
from annotation.selectors.review import current_votes
from annotation.selectors.rubrics import criteria_by_version
from leaderboard.report.selectors.agreement import rater_pseudonyms
from leaderboard.stats.alt_test import MIN_LABELS

FORMAT = "healthbench-meta-eval"


@dataclass(frozen=True)
class HealthBenchMeta:
    rows: list[dict]
    items: int  # the round's items
    units: int  # (item, criterion) pairs of the round
    experts: int  # experts with a vote on an exported line
    votes: int  # votes on the exported lines
    fewer_votes: int  # units left out: fewer than `min_votes` votes
    min_votes: int

    def summary(self) -> dict:
        return {
            "format": FORMAT,
            "rows": len(self.rows),
            "items": self.items,
            "units": self.units,
            "experts": self.experts,
            "votes": self.votes,
            "units_with_fewer_votes": self.fewer_votes,
            "min_votes": self.min_votes,
        }


def _ballots(round_: ReviewRound) -> dict[int, dict[int, list[tuple[str, bool]]]]:
    """Per item, then criterion: (pseudonym, hit) of each current vote, by pseudonym."""
    pseudonym = rater_pseudonyms(round_=round_)
    found: dict[int, dict[int, list[tuple[str, bool]]]] = defaultdict(lambda: defaultdict(list))
    for item, criterion, expert, hit in current_votes(round_=round_).values_list(
        "assignment__item_id", "criterion_id", "assignment__expert_id", "hit"
    ):
        found[item][criterion].append((pseudonym[expert], hit))
    for by_criterion in found.values():
        for ballots in by_criterion.values():
            ballots.sort()
    return found


def healthbench_meta_rows(*, round_: ReviewRound, min_votes: int = MIN_LABELS) -> HealthBenchMeta:
    """The round's lines in the meta-eval format, in item then criterion order. Four
    queries."""
    if min_votes < 1:
        raise ValueError("min_votes must be at least 1")
    items = list(
        ReviewItem.objects.filter(round=round_)
        .order_by("pk")
        .values_list(
            "pk",
            "code",
            "rubric_version_id",
            "response__text",
            "response__case__external_id",
            "response__case__dialogue",
            "response__case__scenario__primary",
        )
    )
    criteria = criteria_by_version({row[2] for row in items})
    ballots = _ballots(round_)
    rows: list[dict] = []
    units = fewer = votes = 0
    experts: set[str] = set()
    for pk, code, version, text, question_id, dialogue, primary in items:
        voted = ballots.get(pk, {})
        for criterion, position, wording in criteria[version]:
            units += 1
            here = voted.get(criterion, [])
            if len(here) < min_votes:
                fewer += 1
                continue
            votes += len(here)
            experts.update(name for name, _hit in here)
            rows.append(
                {
                    "prompt": dialogue,
                    "completion": text,
                    "rubric": wording,
                    "category": primary or "",
                    "binary_labels": [hit for _name, hit in here],
                    "anonymized_physician_ids": [name for name, _hit in here],
                    "prompt_id": question_id,
                    "item": code,
                    "criterion_position": position,
                }
            )
    return HealthBenchMeta(rows, len(items), units, len(experts), votes, fewer, min_votes)
