"""Statistics worded for psychologists: alpha's words agree with the 0.67 minimum the same
sentence names; the sequential card speaks of evidence, not "E-value" or "(1/α)"; the PDF
keeps the page's "How to read it" column; untimed work reads "not enough timed items",
never "0.0 min" or "0.0 expert hours"."""

from dataclasses import replace

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from leaderboard.report.agreement import agreement_report
from leaderboard.report.reading import statistic_readings
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)
from tests.leaderboard.test_report_pdf import _pdf, _text, _user


def alpha_reading(value: float) -> str:
    report = replace(agreement_report([], resamples=10), humans={"krippendorff_alpha": value})
    with translation.override("en"):
        readings = {r.key: r for r in statistic_readings(report)}
    return readings["humans.krippendorff_alpha"].text


@pytest.mark.parametrize(
    "value, words, not_words",
    [
        (0.63, "below 0.67", ["substantial", "tentative conclusions can be drawn"]),
        (0.70, "enough for tentative conclusions", ["below 0.67", "reliable."]),
        (0.85, "reliable", ["below 0.67"]),
    ],
)
def test_alphas_words_agree_with_its_own_minimum(value, words, not_words):
    text = alpha_reading(value)
    assert words in text
    for word in not_words:
        assert word not in text


SEQUENTIAL = {
    "decision": "pass",
    "decided_at": 34,
    "items_total": 120,
    "items_used": 34,
    "e_pass": 21.77,
    "e_fail": 0.4,
    "alpha": 0.05,
    "threshold": 0.75,
    "cs": [0.78, 0.93],
    "reason": None,
    "savings": {
        "decided_at": 34,
        "items_total": 120,
        "ratings_not_needed": 258,
        "median_item_seconds": 0.0,
        "expert_hours": 0.0,
        "reason": None,
    },
    "ratings_needed": 102,
    "ratings_planned": 360,
}


class _Round:
    pk = 1

    class benchmark:
        slug = "hb"


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_sequential_cards_speak_plainly(language):
    with translation.override(language):
        card = render_to_string(
            "leaderboard/_round_sequential.html",
            {"s": SEQUENTIAL, "state": {}, "round": _Round, "chart": None},
        )
        report = render_to_string(
            "leaderboard/_sequential.html", {"report": {"sequential": SEQUENTIAL}}
        )
    for html in (card, report):
        assert "E-value" not in html and "e-value" not in html
        assert "1/α" not in html and "wealth" not in html
        assert "0.0 expert hours" not in html and "about 0 expert hours" not in html
    if language == "en":
        assert "Evidence for passing" in card and "21.77" in card
        assert "decides at 20" in card
        assert "not enough timed items" in card and "not enough timed items" in report


@pytest.mark.django_db
def test_the_pdf_keeps_the_how_to_read_it_column(data):  # noqa: F811
    from accounts.roles import RESEARCHER

    round_, run = data
    text = " ".join(_text(_pdf(_client(_user(RESEARCHER)), round_, run)).split())
    assert "How to read it" in text
    # The page's reading of a statistic, in the PDF too.
    assert "beyond what two raters with these" in text


def _client(user):
    from tests.conftest import client_for

    return client_for(user)
