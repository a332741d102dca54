"""Making a benchmark's drift anchors from a closed round: responses of its held-out part
(all its responses when it has no split) with the experts' majority verdicts."""

import random

from django.db import transaction
from django.utils.translation import gettext as _

from annotation.models import ReviewItem, ReviewRound
from annotation.selectors.review import round_consensus
from leaderboard.models import AnchorSet, AnchorUnit

DEFAULT_ANCHORS = 30


class AnchorsRefused(Exception):
    """The anchors cannot be made from this round; the message says why."""


def anchor_set_create(
    *, round_: ReviewRound, responses: int = DEFAULT_ANCHORS, seed: int | None = None, user=None
) -> AnchorSet:
    """The benchmark's new anchor set: up to `responses` responses drawn with `seed` from
    the closed round's held-out items, each with its criteria that have a majority (ties
    are left out: they have no gold). Raises AnchorsRefused."""
    if round_.status != ReviewRound.Status.CLOSED:
        raise AnchorsRefused(
            _("The round %(round)s is not closed: anchors need the experts' final verdicts.")
            % {"round": round_.name}
        )
    if responses < 1:
        raise AnchorsRefused(_("Choose at least one anchor response."))
    items = ReviewItem.objects.filter(round=round_, is_reference=False)
    if round_.calibration_share:
        items = items.filter(part=ReviewItem.Part.HELD_OUT)
    item_response = dict(items.values_list("pk", "response_id"))
    gold: dict[int, dict[int, bool]] = {}
    for (item, criterion), consensus in round_consensus(round_=round_).items():
        if item in item_response and consensus.outcome == "majority":
            gold.setdefault(item_response[item], {})[criterion] = consensus.label
    if not gold:
        raise AnchorsRefused(
            _("No response of the round %(round)s has a majority verdict to anchor on.")
            % {"round": round_.name}
        )
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    chosen = random.Random(seed).sample(sorted(gold), min(responses, len(gold)))
    with transaction.atomic():
        anchor_set = AnchorSet.objects.create(
            benchmark_id=round_.benchmark_id, round=round_, seed=seed, created_by=user
        )
        AnchorUnit.objects.bulk_create(
            AnchorUnit(
                anchor_set=anchor_set,
                response_id=response,
                criterion_id=criterion,
                gold=hit,
                position=position,
            )
            for position, response in enumerate(chosen)
            for criterion, hit in sorted(gold[response].items())
        )
    return anchor_set
