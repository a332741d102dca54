"""The rubric editor's save status and Publish button tell the truth about the draft."""

import re

import pytest

from annotation.models import RubricDraft
from tests.annotation.views.test_rubric_pages import HX, case, form_of, url  # noqa: F401
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def element(body: str, element_id: str) -> str:
    match = re.search(rf'<(\w+)[^>]*id="{element_id}"[^>]*>.*?</\1>', body, re.S)
    assert match, element_id
    return match.group(0)


def test_an_out_of_range_weight_is_saved_named_in_the_status_and_blocks_publish(
    case,  # noqa: F811
    coordinator,
):
    client = client_for(coordinator)
    response = client.post(url("rubric-draft"), form_of(case, {3: {"weight": "15"}}), headers=HX)
    assert response.status_code == 200
    body = response.content.decode()
    status = element(body, "autosave-status")
    assert "Draft saved at" in status
    assert "cannot be published yet: Criterion 3: The weight 15 is out of range" in status
    button = element(body, "publish-button")
    assert "disabled" in button
    assert "Criterion 3" in element(body, "publish-blocked")
    assert RubricDraft.objects.get().rows[2]["weight"] == 15  # kept as typed, not lost

    page = client.get(url("rubric-editor")).content.decode()
    assert 'value="15"' in page
    assert "disabled" in element(page, "publish-button")
    assert "The weight 15 is out of range" in element(page, "publish-blocked")
    assert 'aria-invalid="true"' in page


def test_a_valid_draft_leaves_publish_enabled(case, coordinator):  # noqa: F811
    client = client_for(coordinator)
    body = client.post(
        url("rubric-draft"), form_of(case, {3: {"weight": "7"}}), headers=HX
    ).content.decode()
    assert "cannot be published" not in element(body, "autosave-status")
    assert "disabled" not in element(body, "publish-button")
    assert "hidden" in element(body, "publish-blocked")


def test_the_browser_does_not_block_the_save_of_an_invalid_value(case, coordinator):  # noqa: F811
    # With the browser's own validation, htmx sent nothing for a weight of 11 and said
    # nothing: the forms leave checking to the server, which keeps and names the value.
    page = client_for(coordinator).get(url("rubric-editor")).content.decode()
    assert re.search(r'<form id="rubric-editor"[^>]*\bnovalidate\b', page)
    assert re.search(r'<form id="publish-form"[^>]*\bnovalidate\b', page)
