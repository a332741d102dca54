"""Making a benchmark's drift anchors from a closed round: responses of its held-out part
(all its responses when it has no split) with the experts' majority verdicts, on the rubric
versions the round froze. Every judge run started afterwards judges them too
(services/runs.py); the drift test reads them (leaderboard.drift)."""

import random

from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext as _

from annotation.models import ReviewItem, ReviewRound
from annotation.selectors.review import round_consensus
from annotation.selectors.rubrics import latest_version_id_subquery
from judging.models import AnchorSet, AnchorUnit

DEFAULT_ANCHORS = 30


class AnchorsRefused(Exception):
    """The anchors cannot be made from this round; the message says why."""


def anchor_set_create(
    *, round_: ReviewRound, responses: int = DEFAULT_ANCHORS, seed: int | None = None, user=None
) -> AnchorSet:
    """The benchmark's new anchor set: up to `responses` responses drawn with `seed` from
    the closed round's held-out items, each with its criteria that have a majority (ties
    are left out: they have no gold). Only items whose case's rubric is still the version
    the round froze are drawn: an anchor on an older version would be set aside at once.
    The set replaces the benchmark's earlier one for the runs that follow; that one is
    kept. Raises AnchorsRefused."""
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
    current = items.annotate(current=latest_version_id_subquery("response__case")).filter(
        rubric_version_id=F("current")
    )
    item_response = {
        item: (response, version)
        for item, response, version in current.values_list("pk", "response_id", "rubric_version_id")
    }
    if items.exists() and not item_response:
        raise AnchorsRefused(
            _(
                "The rubric of every case of the round %(round)s has changed since the round: "
                "its verdicts are on older rubric versions. Make the anchors from a later round."
            )
            % {"round": round_.name}
        )
    gold: dict[int, dict[int, bool]] = {}
    version_of: dict[int, int] = {}
    for (item, criterion), consensus in round_consensus(round_=round_).items():
        if item in item_response and consensus.outcome == "majority":
            response, version = item_response[item]
            gold.setdefault(response, {})[criterion] = consensus.label
            version_of[response] = version
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
                rubric_version_id=version_of[response],
                gold=hit,
                position=position,
            )
            for position, response in enumerate(chosen)
            for criterion, hit in sorted(gold[response].items())
        )
    return anchor_set
