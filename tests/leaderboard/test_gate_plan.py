"""Planning a round: the fixed sample for the lower-bound rule, the sequential rule's
expected items, and the design effect from a pilot round."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

pytestmark = pytest.mark.django_db


def _plan(*args) -> dict:
    out = StringIO()
    call_command("gate_plan", "--benchmark", "hb", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_a_plan_without_a_pilot(data):  # noqa: F811
    plan = _plan("--expected", "0.85", "--threshold", "0.75")
    assert set(plan) >= {
        "items_fixed", "items_sequential_median", "items_sequential_p90", "design_effect",
    }  # fmt: skip
    # No pilot: the stated default, an intraclass correlation of 0.1 among 4 criteria.
    assert plan["design_effect"] == pytest.approx(1.3) and plan["units_per_item"] == 4.0
    assert plan["design_effect_source"] == "default"
    assert plan["items_fixed"] > 0
    assert 0 < plan["items_sequential_median"] <= plan["items_sequential_p90"]
    # Two responses are all this benchmark has: the simulated rounds stop there, and two
    # items are too few for the sequential test to decide.
    assert plan["capped"] is True and plan["sequential_horizon"] == 2
    assert plan["likely_decision"] == "continue" and plan["sequential_pass_share"] == 0.0
    assert len(plan["warnings"]) == 3  # capped, undecided, the fixed sample is too large


def test_a_pilot_round_gives_the_design_effect(data):  # noqa: F811
    plan = _plan("--expected", "0.85", "--pilot-round", "R")
    assert plan["pilot_round"] == "R" and plan["pilot_agreement"] == 0.75
    # Both pilot items agree on 3 of their 4 criteria: no clustering beyond chance.
    assert plan["design_effect"] == 1.0 and plan["design_effect_source"] == "pilot"
    # The pilot's items were rated 10 s each: 2 items x 3 raters x 10 s per item planned.
    assert plan["median_item_seconds"] == 10.0
    assert plan["expert_hours_fixed"] == pytest.approx(plan["items_fixed"] * 3 * 10 / 3600)


def test_the_plan_in_words(data):  # noqa: F811
    out = StringIO()
    call_command("gate_plan", "--benchmark", "hb", "--expected", "0.85", stdout=out)
    text = out.getvalue()
    assert "2 responses, 4.00 criteria per item (4 to 4), design effect 1.300" in text
    assert "likely decision" in text
    assert "warning: Only 2 responses can be reviewed" in text


def test_an_expected_agreement_at_the_threshold_has_no_fixed_size(data):  # noqa: F811
    plan = _plan("--expected", "0.75", "--threshold", "0.75")
    assert plan["items_fixed"] is None
    assert plan["sequential_pass_share"] <= 0.1
    assert plan["capped"] is True and plan["sequential_horizon"] == 2


def test_bad_input_is_named(data):  # noqa: F811
    with pytest.raises(CommandError, match="strictly between 0 and 1"):
        _plan("--expected", "1.5")
    with pytest.raises(CommandError, match="raters per item must be at least 1"):
        _plan("--expected", "0.85", "--raters", "0")
    with pytest.raises(CommandError, match="no review round 'nope'"):
        _plan("--expected", "0.85", "--pilot-round", "nope")
