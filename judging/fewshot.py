"""Choosing few-shot examples under a token budget (no Django).

Every ability the disagreements touch gets a turn in order, one example per turn, so a
budget too small for all still spreads over the abilities; within an ability, examples
the experts explained come first, then the shorter ones."""

from collections import defaultdict
from dataclasses import dataclass, field

from judging.prompting import FewShotExample, render_examples
from judging.text_measure import estimate_tokens

# Enough for a few examples of a dialogue of several turns each.
DEFAULT_BUDGET = 2000


@dataclass(frozen=True)
class Candidate:
    """One calibration disagreement the experts settled: an example the judge could learn
    from, and where it came from."""

    item: int
    item_code: str
    criterion: int
    ability: str
    criterion_text: str
    dialogue: list
    response: str
    expert_hit: bool
    judge_hit: bool
    how: str  # "adjudicated" or "unanimous"
    explanation: str
    language: str = "en"
    tokens: int = field(default=0, compare=False)

    def example(self, explanation: str | None = None) -> FewShotExample:
        return FewShotExample(
            ability=self.ability,
            criterion=self.criterion_text,
            dialogue=self.dialogue,
            response=self.response,
            hit=self.expert_hit,
            explanation=self.explanation if explanation is None else explanation,
        )

    def stored(self, explanation: str | None = None) -> dict:
        """As a judge version keeps it: the example and its origin (item and criterion)."""
        example = self.example(explanation)
        return {
            "item": self.item,
            "criterion_id": self.criterion,
            "ability": example.ability,
            "criterion": example.criterion,
            "dialogue": example.dialogue,
            "response": example.response,
            "hit": example.hit,
            "explanation": example.explanation,
        }


def example_tokens(candidate: Candidate, language: str) -> int:
    """The estimated tokens the example adds to every prompt (its own part of the block)."""
    return estimate_tokens(render_examples([candidate.example()], language))


def choose(candidates: list[Candidate], budget: int) -> list[Candidate]:
    """The examples to propose: abilities in turn, until the budget allows no more."""
    by_ability: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in sorted(
        candidates, key=lambda c: (not c.explanation.strip(), c.tokens, c.item, c.criterion)
    ):
        by_ability[candidate.ability].append(candidate)
    queues = [by_ability[ability] for ability in sorted(by_ability)]
    chosen: list[Candidate] = []
    spent = 0
    while any(queues):
        for queue in queues:
            while queue:
                candidate = queue.pop(0)
                if spent + candidate.tokens <= budget:
                    chosen.append(candidate)
                    spent += candidate.tokens
                    break
    return chosen
