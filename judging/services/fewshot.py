"""Making a judge version from few-shot examples the coordinator kept and edited: a version
derived from the round (judge_derive), so it records its parent and round and the gate and
judge selection judge it on the round's held-out items only."""

from dataclasses import dataclass

from django.utils.translation import gettext as _

from annotation.models import ReviewRound
from judging.models import JudgeVersion
from judging.selectors.fewshot import NoProposals, fewshot_proposals
from judging.services.judge_derive import DeriveRefused, judge_version_derive

# An explanation is a few sentences; longer text would crowd out the examples themselves.
EXPLANATION_LIMIT = 2000


@dataclass(frozen=True)
class Kept:
    """An example the coordinator kept: which disagreement, and its explanation as edited."""

    item: int
    criterion: int
    explanation: str


def judge_version_with_examples(
    *, parent: JudgeVersion, round_: ReviewRound, kept: list[Kept], note: str, user=None
) -> JudgeVersion:
    """A new version derived from `parent` whose prompt carries the `kept` examples, in that
    order. Each must be a settled disagreement of `parent` on the round's calibration part
    (the examples' texts are read again from the round, only explanations come from the
    coordinator). Raises DeriveRefused, writing nothing, otherwise."""
    if not kept:
        raise DeriveRefused(_("Keep at least one example: a version without any changes nothing."))
    try:
        proposals = fewshot_proposals(version=parent, round_=round_, budget=0)
    except NoProposals as exc:
        raise DeriveRefused(str(exc)) from exc
    candidates = {(c.item, c.criterion): c for c in proposals.candidates}
    examples, seen = [], set()
    for choice in kept:
        key = (choice.item, choice.criterion)
        candidate = candidates.get(key)
        if candidate is None:
            raise DeriveRefused(
                _(
                    "Item %(item)s, criterion %(criterion)s is not a disagreement the experts "
                    "settled on the round's calibration part: only those can be examples."
                )
                % {"item": choice.item, "criterion": choice.criterion}
            )
        explanation = choice.explanation.strip()
        if len(explanation) > EXPLANATION_LIMIT:
            raise DeriveRefused(
                _("An explanation is at most %(limit)s characters.") % {"limit": EXPLANATION_LIMIT}
            )
        if key not in seen:
            seen.add(key)
            examples.append(candidate.stored(explanation))
    return judge_version_derive(
        parent=parent, round_=round_, note=note, examples=examples, user=user
    )
