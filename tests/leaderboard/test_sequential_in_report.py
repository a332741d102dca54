"""The agreement report always carries the sequential gate's state, read from the round's
items in their hand-out order, settled prefix only."""

import json

import pytest
from django.core.management import call_command

from annotation.models import Assignment, ReviewItem
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

pytestmark = pytest.mark.django_db


def _report(capsys) -> dict:
    call_command(
        "agreement_report", "--benchmark", "hb", "--round", "R", "--judge-run", "latest",
        "--json", "--resamples", "50",
    )  # fmt: skip
    return json.loads(capsys.readouterr().out)


def test_the_report_has_the_sequential_state(data, capsys):  # noqa: F811
    sequential = _report(capsys)["sequential"]
    assert set(sequential) >= {
        "rule", "alpha", "decision", "items_used", "items_total", "e_pass", "e_fail", "cs",
    }  # fmt: skip
    assert sequential["alpha"] == 0.05 and sequential["threshold"] == 0.75
    # Two items, both settled: far too few to decide either way.
    assert (sequential["decision"], sequential["items_used"], sequential["items_total"]) == (
        "continue",
        2,
        2,
    )
    low, high = sequential["cs"]
    assert 0.0 <= low <= 0.75 <= high <= 1.0
    # A rating is one expert's verdicts on one item: 2 items by 3 experts.
    assert sequential["ratings_used"] == sequential["ratings_total"] == 2 * 3
    assert sequential["ratings_planned"] == 2 * 3


def test_an_unsettled_first_item_holds_back_the_items_after_it(data, capsys):  # noqa: F811
    round_, _run = data
    first = ReviewItem.objects.filter(round=round_).order_by("hand_out_rank").first()
    # One rater's work on the first item in hand-out order goes back to in progress.
    assignment = Assignment.objects.filter(item=first).first()
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.ASSIGNED)
    sequential = _report(capsys)["sequential"]
    assert sequential["items_used"] == 0 and sequential["decision"] == "continue"
    assert sequential["cs"] is None


def test_the_agreement_page_shows_the_state_in_both_languages(data, coordinator):  # noqa: F811
    from django.urls import reverse

    from tests.conftest import client_for

    round_, run = data
    url = reverse("agreement", args=["hb"])
    page = client_for(coordinator).get(url, {"round": round_.pk, "run": run.pk}).content.decode()
    assert 'id="sequential"' in page and 'data-decision="continue"' in page
    assert "Not decided yet: 2 of 2 items are settled and counted." in page
    chinese = client_for(coordinator).get(
        url, {"round": round_.pk, "run": run.pk}, headers={"accept-language": "zh-hans"}
    )
    assert "尚未决定" in chinese.content.decode()


def test_the_sequential_rule_passes_only_on_the_tests_decision(data, capsys):  # noqa: F811
    from leaderboard.models import GatePolicy
    from leaderboard.report.agreement import GateRule, gate
    from leaderboard.report.wording import gate_rule_text

    round_, _run = data
    GatePolicy.objects.update_or_create(
        benchmark=round_.benchmark, defaults={"rule": "sequential", "threshold": 0.75}
    )
    report = _report(capsys)
    # 75% agreement meets the point rule, but two items decide nothing yet.
    assert report["percent_agreement"] == 0.75
    assert report["gate"]["rule_name"] == "sequential" and report["gate"]["passed"] is False
    assert report["gate"]["decision"] == "continue"
    decided = gate(
        point=0.9,
        wilson_95=[0.8, 0.95],
        sequential={"decision": "pass"},
        threshold=0.75,
        rule=GateRule.SEQUENTIAL,
    )
    assert decided["passed"] is True
    from django.utils import translation

    with translation.override("en"):
        assert gate_rule_text(decided) == (
            "the sequential test decides that agreement is at least 75.0%"
        )
