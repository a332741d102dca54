"""Attacker's finding 24: an expert stored a 9,000,000-character rubric comment, and that
case's rubric editor page grew to 9 MB. A comment is limited like a note, on the page and in
the service, with a message that gives the length and the limit."""

import pytest
from django.urls import reverse

from accounts.roles import EXPERT
from annotation.models import Assignment, RubricComment
from annotation.services.review_votes import NOTE_MAX_LENGTH
from annotation.services.rubrics import rubric_comment_add


def test_a_9_million_character_rubric_comment_is_refused(world, client):
    expert = world["users"][EXPERT]
    case = Assignment.objects.get(expert=expert).item.response.case
    client.force_login(expert)
    url = reverse("rubric-comment", args=[case.benchmark.slug, case.external_id])
    text = "x" * 9_000_000
    response = client.post(url, {"text": text}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    assert f"{NOTE_MAX_LENGTH}" in response.content.decode()
    assert len(response.content) < 1_000_000
    assert not RubricComment.objects.filter(case=case).exists()
    with pytest.raises(ValueError, match=str(NOTE_MAX_LENGTH)):
        rubric_comment_add(case=case, author=expert, text="x" * (NOTE_MAX_LENGTH + 1))
    kept = rubric_comment_add(case=case, author=expert, text="好" * NOTE_MAX_LENGTH)
    assert len(kept.text) == NOTE_MAX_LENGTH
