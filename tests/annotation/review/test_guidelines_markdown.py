"""Guidelines are written in Markdown and shown rendered, never as literal `**明确**`, and
never as a way to put script or foreign markup on an expert's page."""

import pytest
from django.urls import reverse

from annotation.markdown import render_markdown
from annotation.services.review_assignment import assignment_next
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

GUIDELINES = """## 判断原则

- 回应要**明确**指出用户的情绪。
- 不确定时，*先*读完整段对话。

| 情况 | 判断 |
|---|---|
| 只给建议 | 不符合 |

<script>alert(1)</script>
[链接](javascript:alert(1)) <img src=x onerror=alert(1)>
"""


def test_markdown_is_rendered_and_cleaned():
    html = render_markdown(GUIDELINES)
    assert "<strong>明确</strong>" in html and "<em>先</em>" in html
    assert "<h2>判断原则</h2>" in html and "<li>" in html and "<table>" in html
    assert "**" not in html
    assert "<script" not in html and "<img" not in html and 'href="javascript' not in html
    assert "&lt;script&gt;" in html  # shown as the text it is


def test_an_expert_sees_the_guidelines_rendered(review_round, experts, coordinator):
    client_for(coordinator).post(reverse("review-guidelines", args=["hb"]), {"text": GUIDELINES})
    assignment = assignment_next(expert=experts[0], round_=review_round)
    page = client_for(experts[0]).get(reverse("review-annotate", args=[assignment.pk]))
    body = page.content.decode()
    assert "<strong>明确</strong>" in body and "**明确**" not in body
    assert "<script>alert(1)</script>" not in body and "<img src=x" not in body


def test_the_coordinator_sees_a_preview(review_round, coordinator):
    client = client_for(coordinator)
    client.post(reverse("review-guidelines", args=["hb"]), {"text": GUIDELINES})
    page = client.get(reverse("review-guidelines", args=["hb"])).content.decode()
    assert "<strong>明确</strong>" in page  # the preview
    assert "**明确**" in page  # the text being edited, as written
