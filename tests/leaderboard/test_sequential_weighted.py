"""The anytime-valid gate refuses a round whose responses were drawn with unequal chances,
saying why, instead of betting on a stream that over-represents the small systems; equal
chances leave it as it was."""

import json

import pytest
from django.core.management import call_command
from django.utils import translation

from annotation.models import ReviewItem
from leaderboard.sequential_evidence import sequential_block
from leaderboard.stats.reasons import SEQUENTIAL_UNEQUAL_CHANCES
from leaderboard.wording_reasons import reason_text
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the fixture)
from tests.leaderboard.test_weighted_agreement import random_units


def test_unequal_weights_are_refused_with_a_reason_and_equal_ones_change_nothing():
    units = random_units(400, seed=3)
    ranks = {unit.response: unit.response for unit in units}
    plain = sequential_block(units, ranks, raters_per_item=2, threshold=0.6)
    same = sequential_block(
        units, ranks, raters_per_item=2, threshold=0.6, weights=[4.0] * len(units)
    )
    assert same == plain
    weights = [1 / 0.2 if unit.system == "A" else 1 / 0.6 for unit in units]
    refused = sequential_block(units, ranks, raters_per_item=2, threshold=0.6, weights=weights)
    assert refused["decision"] is None and refused["reason"] == SEQUENTIAL_UNEQUAL_CHANCES
    assert refused["items_total"] == plain["items_total"]
    with translation.override("en"):
        assert "unequal chances" in reason_text(refused["reason"])


@pytest.mark.django_db
def test_a_round_with_unequal_chances_reports_the_refusal(data, capsys):  # noqa: F811
    round_, _run = data
    items = list(ReviewItem.objects.filter(round=round_).order_by("pk"))
    for item, chance in zip(items, (0.5, 0.25), strict=True):
        item.inclusion_probability = chance
    ReviewItem.objects.bulk_update(items, ["inclusion_probability"])
    call_command(
        "agreement_report", "--benchmark", "hb", "--round", "R", "--judge-run", "latest",
        "--format", "json", "--resamples", "50",
    )  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert report["sequential"]["decision"] is None
    assert report["sequential"]["reason"] == SEQUENTIAL_UNEQUAL_CHANCES
