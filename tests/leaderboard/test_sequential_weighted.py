"""The anytime-valid gate refuses a round whose responses were drawn with unequal chances,
saying why, instead of betting on a stream that over-represents the small systems; equal
chances leave it as it was."""

import json

import pytest
from django.core.management import call_command
from django.utils import translation

from annotation.models import ReviewItem
from leaderboard.report.wording_reasons import reason_text
from leaderboard.sequential.evidence import sequential_block
from leaderboard.stats.reasons import SEQUENTIAL_UNEQUAL_CHANCES
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
        "--json", "--resamples", "50",
    )  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert report["sequential"]["decision"] is None
    assert report["sequential"]["reason"] == SEQUENTIAL_UNEQUAL_CHANCES


def _tallies(unequal: bool, name: str = "R"):
    from leaderboard.gate.history import RoundTallies

    return RoundTallies(
        round_id=1,
        name=name,
        raters_per_item=3,
        per_item=tuple((5, 5, True) for _ in range(60)),
        most_units=5,
        unequal_chances=unequal,
    )


def test_the_gate_over_a_versions_rounds_refuses_the_sequential_rule_on_unequal_chances():
    from leaderboard.gate.history import RoundTallies, history_gate
    from leaderboard.gate.refusals import UNEQUAL_CHANCES
    from leaderboard.gate.wording import gate_refusal_text

    plain = history_gate([_tallies(False)], rule="sequential", threshold=0.75, min_raters=2)
    assert plain["refusal"] is None and plain["passed"] is True
    # An earlier round drawn with unequal chances spoils the wealth carried over: refused.
    gate = history_gate(
        [_tallies(True, "by system"), _tallies(False)],
        rule="sequential",
        threshold=0.75,
        min_raters=2,
    )
    assert gate["refusal"] == UNEQUAL_CHANCES and gate["passed"] is False
    with translation.override("en"):
        assert "by system" in gate_refusal_text(gate)
        assert "unequal chances" in gate_refusal_text(gate)
    # The fixed rules read the whole sample: not refused for it.
    fixed = history_gate([_tallies(True)], rule="point", threshold=0.75, min_raters=2)
    assert fixed["refusal"] is None and fixed["passed"] is True
    # Kept through the stored form.
    stored = [r.as_dict() for r in [_tallies(True), _tallies(False)]]
    assert [RoundTallies.from_dict(r).unequal_chances for r in stored] == [True, False]
    assert "unequal_chances" not in stored[1]


@pytest.mark.django_db
def test_a_rounds_tallies_know_its_chances(data):  # noqa: F811
    from leaderboard.gate.selectors.history import tallies_of
    from leaderboard.report.selectors.agreement import agreement_units

    round_, run = data
    units = agreement_units(round_=round_, runs=[run])
    assert tallies_of(round_=round_, units=units).unequal_chances is False
    items = list(ReviewItem.objects.filter(round=round_).order_by("pk"))
    for item, chance in zip(items, (0.5, 0.25), strict=True):
        item.inclusion_probability = chance
    ReviewItem.objects.bulk_update(items, ["inclusion_probability"])
    assert tallies_of(round_=round_, units=units).unequal_chances is True


@pytest.mark.django_db
def test_the_rounds_sequential_card_says_why_it_does_not_bet(data):  # noqa: F811
    from django.urls import reverse

    from accounts.roles import RESEARCHER
    from accounts.services import user_create_with_role
    from tests.conftest import client_for

    round_, _run = data
    items = list(ReviewItem.objects.filter(round=round_).order_by("pk"))
    for item, chance in zip(items, (0.5, 0.25), strict=True):
        item.inclusion_probability = chance
    ReviewItem.objects.bulk_update(items, ["inclusion_probability"])
    client = client_for(user_create_with_role(username="r", password="x-pass-12", role=RESEARCHER))
    with translation.override("en"):
        page = client.get(reverse("round-sequential", args=[round_.pk]))
    assert page.status_code == 200
    assert "drawn with unequal chances" in page.content.decode()
