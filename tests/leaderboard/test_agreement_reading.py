"""The agreement report can be read by a psychologist: every statistic has a line saying what
it means here, in English and in Chinese; percentages come one way; p-values, units and
small groups are explained; the gate says what would change its decision."""

import json
import re

import pytest
from django.urls import reverse

from leaderboard.models import GatePolicy
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - the shared fixture

pytestmark = pytest.mark.django_db

CJK = re.compile(r"[\u4e00-\u9fff]")


def _page(user, round_, run, language="en"):
    client = client_for(user)
    client.cookies["django_language"] = language
    response = client.get(
        reverse("agreement", args=["hb"]),
        {"round": round_.pk, "run": run.pk},
        headers={"accept-language": language},
    )
    assert response.status_code == 200
    return response.content.decode()


def _statistics(body: str) -> dict[str, tuple[str, str]]:
    """data-stat -> (value, reading) for each row of the statistics table."""
    rows = re.findall(
        # The label, then the "?" that opens the researcher guide at the statistic.
        r'<tr data-stat="([^"]+)"><th scope="row">[^<]*<a class="help-link" href="[^"]*#\1"'
        r'[^>]*>\?</a></th><td class="num">([^<]*)</td>'
        r'<td class="reading">([^<]*)</td>',
        body,
    )
    return {key: (value, text) for key, value, text in rows}


def test_each_statistic_has_a_reading_in_both_languages(data, researcher):  # noqa: F811
    round_, run = data
    english, chinese = _page(researcher, round_, run), _page(researcher, round_, run, "zh-hans")
    assert "Cohen's kappa" in english.replace("&#x27;", "'")
    shown = _statistics(english)
    expected = {
        "percent_agreement",
        "cohen_kappa",
        "gwet_ac1",
        "pabak",
        "confusion.sensitivity",
        "confusion.specificity",
        "confusion.prevalence",
        "humans.fleiss_kappa",
        "humans.krippendorff_alpha",
        "humans.gwet_ac1",
        "humans.pairwise_agreement",
    }
    assert set(shown) == expected, "every statistic on the page, each with a reading"
    translated = _statistics(chinese)
    assert set(translated) == expected
    for key in expected:
        assert len(shown[key][1]) > 30, f"{key}: no reading"
        assert CJK.search(translated[key][1]), f"{key}: the reading is not in Chinese"
        assert translated[key][1] != shown[key][1]
    kappa_value, kappa_text = shown["cohen_kappa"]
    assert kappa_value in kappa_text.replace("&#x27;", "'")
    assert "by chance" in kappa_text


def test_percentages_come_one_way_and_coefficients_on_their_own_scale(data, researcher):  # noqa: F811
    round_, run = data
    body = _page(researcher, round_, run)
    shown = _statistics(body)
    for key in ("percent_agreement", "confusion.sensitivity", "confusion.prevalence"):
        assert re.fullmatch(r"\d{1,3}\.\d%|—", shown[key][0]), shown[key]
    for key in ("cohen_kappa", "gwet_ac1", "pabak"):
        assert re.fullmatch(r"-?\d\.\d\d|—", shown[key][0]), shown[key]
    # No four-decimal proportion anywhere in the tables.
    assert not re.search(r'<td class="num">0\.\d{3,}', body)
    assert re.search(r"Wilson 95% CI \d+\.\d–\d+\.\d%", body)
    assert "agreement (point estimate) of at least 75.0%" in body


def test_p_value_units_and_small_groups_are_explained(data, researcher):  # noqa: F811
    round_, run = data
    body = _page(researcher, round_, run)
    assert re.search(r'<span title="p = [0-9.e-]+">p [=<] ', body), "the exact p in a title"
    assert 'id="p-reading"' in body and "these data give no sign of agreement above" in body
    assert 'id="units-reading"' in body and "A unit is one criterion of one reviewed" in body
    # Each ability has 2 units here: every group is too small to read.
    ability_table = body.split('data-breakdown="ability"')[1].split("</table>")[0]
    assert ability_table.count("too small to read") == ability_table.count("<tr data-group")
    chart = json.loads(
        body.split('id="agreement-chart-data" type="application/json">')[1].split("</script>")[0]
    )
    assert chart["threshold"] == 0.75 and chart["small"] == 30 and chart["units"]


def test_the_gate_says_how_much_more_evidence_would_change_its_decision(data, researcher):  # noqa: F811
    round_, run = data
    # 6 of 8 agree (75%): at a 70% threshold under the lower-bound rule the gate fails,
    # and the same agreement on more units would lift the bound to 70%.
    GatePolicy.objects.create(benchmark=run.benchmark, threshold=0.7, rule="lower_bound")
    body = _page(researcher, round_, run)
    outlook = re.search(r'id="gate-outlook">(.*?)</p>', body, re.S)
    assert outlook, "the gate box says nothing about what would change the decision"
    assert re.search(r"About \d+ more units \(about \d+ more reviewed responses\)", outlook[1])
    assert "lower bound to reach 70.0%" in outlook[1]
    GatePolicy.objects.filter(benchmark=run.benchmark).update(threshold=0.8)
    body = _page(researcher, round_, run)
    assert "Agreement is not above 80.0%" in body


def test_a_pass_on_the_point_estimate_alone_says_how_fragile_it_is(data, researcher):  # noqa: F811
    round_, run = data
    body = _page(researcher, round_, run)  # 75% under the default 75% point rule: passed
    assert "Gate passed" in body
    assert "Agreement is exactly at 75.0%: a few more disagreements would turn" in body
    GatePolicy.objects.create(benchmark=run.benchmark, threshold=0.7)
    body = _page(researcher, round_, run)
    assert "The point estimate passes, but the lower bound" in body
