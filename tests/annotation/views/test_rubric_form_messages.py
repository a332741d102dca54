"""The rubric editor's status names every row that blocks publishing, not just the first;
after publishing, the history shows the differences first and no wall of "undefined (…) 0/0"
rows for versions nobody has rated yet."""

import re

import pytest
from django.urls import reverse

from tests.annotation.views.test_rubric_pages import HX, case, form_of, url  # noqa: F401
from tests.annotation.views.test_rubric_save_status import element
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_the_status_names_every_bad_row(case, coordinator):  # noqa: F811
    client = client_for(coordinator)
    count = len(form_of(case)["key"])
    assert count >= 3
    bad = {position: {"weight": str(20 + position)} for position in range(1, count + 1)}
    body = client.post(url("rubric-draft"), form_of(case, bad), headers=HX).content.decode()
    status = element(body, "autosave-status")
    blocked = element(body, "publish-blocked")
    for position in range(1, count + 1):
        assert f"Criterion {position}: The weight {20 + position} is out of range" in status
        assert f"Criterion {position}" in blocked


def test_after_publishing_the_history_reads_without_undefined_rows(case, coordinator):  # noqa: F811
    client = client_for(coordinator)
    response = client.post(
        url("rubric-publish"), {**form_of(case, {1: {"text": "更清楚的说法"}}), "note": "措辞"}
    )
    assert response.status_code == 302
    history = client.get(response["Location"]).content.decode()
    diff_at = history.index('class="data diff"')
    health_at = history.index('id="rubric-health-versions"')
    assert diff_at < health_at  # the differences come first
    slug, external_id = case.benchmark.slug, case.external_id
    fragment = client.get(
        reverse("rubric-health-versions", args=[slug, external_id]), headers=HX
    ).content.decode()
    assert not re.search(r">\s*0/0\s*<", fragment)
    assert "undefined" not in fragment
    assert "No expert ratings or judge verdicts on this version yet." in fragment
