"""The anytime-valid gate on a round whose responses were drawn with unequal chances weights
each item by its chance ratio (leaderboard.stats.sequential_weighted) instead of refusing:
the report, the round's card and the gate over a judge version's rounds decide, say that the
test is weighted, and equal chances leave everything as it was. Tallies recorded without
the items' chances still refuse, saying why."""

import json

import pytest
from django.core.management import call_command
from django.utils import translation

from annotation.models import ReviewItem
from leaderboard.evidence.item_tallies import item_tallies
from leaderboard.gate.history import RoundTallies, history_gate
from leaderboard.gate.refusals import UNEQUAL_CHANCES
from leaderboard.gate.wording import gate_refusal_text
from leaderboard.report.wording_reasons import reason_text
from leaderboard.sequential.evidence import sequential_block
from leaderboard.stats.reasons import SEQUENTIAL_UNEQUAL_CHANCES
from leaderboard.stats.sequential import sequential_gate
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the fixture)
from tests.leaderboard.test_weighted_agreement import random_units


def _chance(response: int) -> float:
    return 0.2 if response % 3 == 0 else 0.6


def test_unequal_weights_weight_the_test_and_equal_ones_change_nothing():
    units = random_units(800, seed=3)
    ranks = {unit.response: (7 * unit.response) % 211 for unit in units}
    plain = sequential_block(units, ranks, raters_per_item=2, threshold=0.55)
    same = sequential_block(
        units, ranks, raters_per_item=2, threshold=0.55, weights=[4.0] * len(units)
    )
    assert same == plain and "weighted" not in plain
    weights = [1 / _chance(unit.response) for unit in units]
    block = sequential_block(units, ranks, raters_per_item=2, threshold=0.55, weights=weights)
    assert block["decision"] is not None and "reason" not in block
    assert block["weighted"] is True and block["least_chance"] == pytest.approx(0.2)
    assert block["items_total"] == plain["items_total"]
    assert block["items_used"] == plain["items_used"]
    # By hand: each item's excess times 0.2 over its own chance, in hand-out order.
    items, most = item_tallies(units, ranks, 2)
    prefix = []
    for item in items:
        if not item.settled:
            break
        prefix.append(item)
    expected = sequential_gate(
        [item.agree for item in prefix],
        [item.units for item in prefix],
        threshold=0.55,
        max_units=most,
        ratios=[0.2 / _chance(item.response) for item in prefix],
    )
    assert block["e_pass"] == pytest.approx(expected.e_pass)
    assert block["e_fail"] == pytest.approx(expected.e_fail)
    assert block["cs"] == [expected.cs_low, expected.cs_high]
    assert (block["e_pass"], block["e_fail"]) != (plain["e_pass"], plain["e_fail"])


def test_units_of_one_response_must_share_its_weight():
    units = random_units(40, seed=1)
    ranks = {unit.response: unit.response for unit in units}
    weights = [1.0 + (index % 2) for index in range(len(units))]
    with pytest.raises(ValueError, match="different weights"):
        sequential_block(units, ranks, raters_per_item=2, threshold=0.6, weights=weights)


def _unequal(round_) -> None:
    items = list(ReviewItem.objects.filter(round=round_).order_by("pk"))
    for item, chance in zip(items, (0.5, 0.25), strict=True):
        item.inclusion_probability = chance
    ReviewItem.objects.bulk_update(items, ["inclusion_probability"])


@pytest.mark.django_db
def test_a_round_with_unequal_chances_reports_a_weighted_decision(data, capsys):  # noqa: F811
    round_, _run = data
    _unequal(round_)
    call_command(
        "agreement_report", "--benchmark", "hb", "--round", "R", "--judge-run", "latest",
        "--json", "--resamples", "50", "--rule", "sequential",
    )  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    sequential = report["sequential"]
    assert sequential["decision"] is not None and "reason" not in sequential
    assert sequential["weighted"] is True and sequential["least_chance"] == 0.25
    gate = report["gate"]
    assert gate["refusal"] != UNEQUAL_CHANCES
    assert gate["sequential"]["weighted"] is True
    assert gate["decision"] == sequential["decision"]
    assert gate["rounds"][-1]["weights"] and gate["rounds"][-1]["unequal_chances"] is True


def _tallies(unequal: bool, name: str = "R", weights=()):
    return RoundTallies(
        round_id=1,
        name=name,
        raters_per_item=3,
        per_item=tuple((5, 5, True) for _ in range(60)),
        most_units=5,
        unequal_chances=unequal,
        weights=weights,
    )


def test_the_gate_over_a_versions_rounds_weights_a_round_drawn_with_unequal_chances():
    plain = history_gate([_tallies(False)], rule="sequential", threshold=0.75, min_raters=2)
    assert plain["refusal"] is None and plain["passed"] is True
    assert "weighted" not in plain["sequential"]
    weights = tuple(5.0 if index % 2 else 2.0 for index in range(60))
    weighted = history_gate(
        [_tallies(True, "by system", weights), _tallies(False)],
        rule="sequential",
        threshold=0.75,
        min_raters=2,
    )
    assert weighted["refusal"] is None and weighted["passed"] is True
    assert weighted["sequential"]["weighted"] is True
    # Its items count less: the pass comes later than on the same items unweighted.
    alone = history_gate(
        [_tallies(True, "by system", weights)], rule="sequential", threshold=0.75, min_raters=2
    )
    assert alone["sequential"]["decided_at"] > plain["sequential"]["decided_at"]
    assert alone["point"] == 1.0
    # Kept through the stored form.
    stored = [r.as_dict() for r in [_tallies(True, weights=weights), _tallies(False)]]
    back = [RoundTallies.from_dict(r) for r in stored]
    assert [r.unequal_chances for r in back] == [True, False]
    assert back[0].weights == weights and back[0].weighted
    assert "unequal_chances" not in stored[1] and "weights" not in stored[1]


def test_tallies_recorded_without_the_items_chances_still_refuse_the_sequential_rule():
    gate = history_gate(
        [_tallies(True, "by system"), _tallies(False)],
        rule="sequential",
        threshold=0.75,
        min_raters=2,
    )
    assert gate["refusal"] == UNEQUAL_CHANCES and gate["passed"] is False
    with translation.override("en"):
        text = gate_refusal_text(gate)
        assert "by system" in text and "unequal chances" in text
        assert "without its items' chances" in text
        # Readings recorded before the test weighted such a round keep their reason.
        assert "unequal chances" in reason_text(SEQUENTIAL_UNEQUAL_CHANCES)
    # The fixed rules read the whole sample: not refused for it.
    fixed = history_gate([_tallies(True)], rule="point", threshold=0.75, min_raters=2)
    assert fixed["refusal"] is None and fixed["passed"] is True


@pytest.mark.django_db
def test_a_rounds_tallies_keep_its_items_weights(data):  # noqa: F811
    from leaderboard.gate.selectors.history import tallies_of
    from leaderboard.report.selectors.agreement import agreement_units

    round_, run = data
    units = agreement_units(round_=round_, runs=[run])
    equal = tallies_of(round_=round_, units=units)
    assert equal.unequal_chances is False and equal.weights == ()
    _unequal(round_)
    tallies = tallies_of(round_=round_, units=units)
    assert tallies.unequal_chances is True
    # One weight per item, in hand-out order: the inverse of its recorded chance.
    items = ReviewItem.objects.filter(round=round_)
    by_rank = sorted(items.values_list("hand_out_rank", "inclusion_probability"))
    assert len(tallies.per_item) == 2
    assert tallies.weights == tuple(1 / p for _rank, p in by_rank)


@pytest.mark.django_db
def test_the_rounds_sequential_card_says_the_test_is_weighted(data):  # noqa: F811
    from django.urls import reverse

    from accounts.roles import RESEARCHER
    from accounts.services import user_create_with_role
    from tests.conftest import client_for

    round_, _run = data
    client = client_for(user_create_with_role(username="r", password="x-pass-12", role=RESEARCHER))
    with translation.override("en"):
        before = client.get(reverse("round-sequential", args=[round_.pk])).content.decode()
    assert 'id="round-sequential-weighted"' not in before
    _unequal(round_)
    with translation.override("en"):
        page = client.get(reverse("round-sequential", args=[round_.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert 'id="round-sequential-weighted"' in text
    assert "Weighted by the chances of being drawn" in text and "25.0%" in text
    assert "drew its responses with unequal chances" in text
