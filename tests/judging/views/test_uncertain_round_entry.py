"""The page and the API that open a round sampled more where the judge is unsure: from a
second judge's run, with clear refusals; annotation's own form and API keep to the designs
that need no judge."""

import pytest
from django.urls import reverse

from annotation.models import ReviewItem, ReviewRound
from judging.models import JudgeRun
from tests.conftest import client_for
from tests.judging.services.test_uncertain_rounds import two_judges  # noqa: F401

pytestmark = pytest.mark.django_db


def _form(benchmark, alpha, expert, first, second, **extra) -> dict:
    return {
        "benchmark": benchmark.pk,
        "name": "Unsure",
        "systems": [s.pk for s in alpha],
        "experts": [expert.pk],
        "fraction": "0.5",
        "seed": "11",
        "raters_per_item": "1",
        "max_items_per_expert": "0",
        "calibration_share": "0",
        "judge_run": first.pk,
        "second_judge_run": second.pk if second else "",
        "floor_share": "1",
        **extra,
    }


def test_the_page_opens_a_round_from_two_judges(two_judges, coordinator):  # noqa: F811
    benchmark, alpha, expert, first, second = two_judges
    client = client_for(coordinator)
    plain = client.get(reverse("review-round-new"), {"benchmark": benchmark.pk})
    link = reverse("review-round-new-uncertain")
    assert link in plain.content.decode()
    page = client.get(link, {"benchmark": benchmark.pk})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="judge_run"' in html and 'name="sampling"' not in html
    answer = client.post(link, _form(benchmark, alpha, expert, first, second))
    round_ = ReviewRound.objects.get(name="Unsure")
    assert answer.status_code == 302 and answer.url == reverse("review-round", args=[round_.pk])
    assert round_.sampling == "uncertainty"
    assert not ReviewItem.objects.filter(round=round_, inclusion_probability__isnull=True).exists()


def test_the_page_refuses_a_single_judge_with_a_message(two_judges, coordinator):  # noqa: F811
    benchmark, alpha, expert, first, _second = two_judges
    client = client_for(coordinator)
    answer = client.post(
        reverse("review-round-new-uncertain"),
        _form(benchmark, alpha, expert, first, None),
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert answer.status_code == 400
    assert "says nothing about how unsure it is" in answer.content.decode()
    # An unfinished run is not offered at all.
    JudgeRun.objects.filter(pk=first.pk).update(status=JudgeRun.Status.RUNNING)
    answer = client.post(
        reverse("review-round-new-uncertain"), _form(benchmark, alpha, expert, first, None)
    )
    assert answer.status_code == 400 and 'name="judge_run"' in answer.content.decode()
    # Annotation's own form does not offer the design: it needs a judge run.
    plain = _form(benchmark, alpha, expert, first, None, sampling="uncertainty")
    answer = client.post(reverse("review-round-new"), plain, HTTP_ACCEPT_LANGUAGE="en")
    assert answer.status_code == 400 and "uncertainty is not one of" in answer.content.decode()
    assert not ReviewRound.objects.exists()


def test_the_api_opens_such_a_round_and_refuses_clearly(two_judges, coordinator):  # noqa: F811
    benchmark, alpha, expert, first, second = two_judges
    client = client_for(coordinator)
    url = reverse("api-review-manage-round-uncertain")
    body = {
        "benchmark": benchmark.slug,
        "name": "Unsure API",
        "systems": [s.name for s in alpha],
        "experts": [expert.username],
        "raters_per_item": 1,
        "fraction": 0.5,
        "judge_run": first.pk,
    }
    refused = client.post(url, body, content_type="application/json", HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 400
    assert "says nothing about how unsure it is" in refused.json()["detail"]
    missing = client.post(url, body | {"second_judge_run": 999999}, content_type="application/json")
    assert missing.status_code == 404
    made = client.post(url, body | {"second_judge_run": second.pk}, content_type="application/json")
    assert made.status_code == 201, made.json()
    data = made.json()
    assert data["sampling"] == "uncertainty" and data["items"] >= 1
    assert client.get(data["detail"]).status_code == 200
    # Annotation's own API does not take the design: it needs a judge run.
    plain = client.post(
        reverse("api-review-manage-rounds"),
        body | {"name": "plain", "sampling": "uncertainty"},
        content_type="application/json",
    )
    assert plain.status_code == 400 and "sampling" in plain.json()
