"""The agreement report as a PDF (read back with pypdf) and as a printable page."""

import io
import re

import pytest
from django.urls import reverse
from pypdf import PdfReader

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER
from accounts.services import user_create_with_role
from judging.models import JudgeTask
from leaderboard.models import GatePolicy
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

pytestmark = pytest.mark.django_db


def _user(role: str):
    return user_create_with_role(
        username=role.lower().replace(" ", "-"), password="x-pass-12", role=role
    )


def _pdf(client, round_, run):
    return client.get(reverse("agreement-pdf", args=["hb"]), {"round": round_.pk, "run": run.pk})


def _text(response) -> str:
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-")
    reader = PdfReader(io.BytesIO(response.content))
    return "\n".join(page.extract_text() for page in reader.pages)


def test_the_pdf_has_the_gate_the_numbers_and_the_chinese_labels(data):  # noqa: F811
    round_, run = data
    text = _text(_pdf(client_for(_user(RESEARCHER)), round_, run))
    assert "Gate passed" in text
    # 6 of 8 units agree (see the hand count in test_agreement_report).
    assert "Agreement with the human majority: 75.0% (n = 8 units)" in text
    assert "Excluded: 0 ties, 0 without votes, 0 whose judge call failed, 0 not judged in" in text
    assert "1000 resamples of whole dialogues" in text
    assert f"#{run.pk} · judge" in text and "Review round" in text
    assert re.search(r"Generated at\s*\d{4}-\d\d-\d\d \d\d:\d\d", text)
    # An ability, in the table and on the chart, named as the page names it: in English
    # here, in Chinese (drawn with the CJK font) under zh-hans.
    assert "Emotional Perception" in text and "情绪感知" not in text
    client = client_for(_user(COORDINATOR))
    url = reverse("agreement-pdf", args=["hb"])
    params = {"round": round_.pk, "run": run.pk}
    chinese = _text(client.get(url, params, HTTP_ACCEPT_LANGUAGE="zh-hans"))
    assert "情绪感知" in chinese
    # The gate's rule is worded in the reader's language too.
    # ...and reads as on the page: words and a percentage with one decimal, no "≥ 0.75".
    assert "Rule: agreement (point estimate) of at least 75.0%" in " ".join(text.split())
    assert "一致性（点估计）不低于 75.0%" in chinese and "point estimate" not in chinese
    assert "≥" not in text and "0.75" not in text
    GatePolicy.objects.create(benchmark=round_.benchmark, threshold=0.8, rule="lower_bound")
    chinese = _text(client.get(url, params, HTTP_ACCEPT_LANGUAGE="zh-hans"))
    # The lower bound is Wilson's at the effective number of units (criteria of a response
    # are correlated), and the rule says so.
    assert "区间下界至少为 80.0%" in chinese and "lower bound" not in chinese
    # The confusion matrix cells: both hit 4, judge only 1, human only 1, both miss 2.
    assert "Confusion matrix" in text
    assert "nan" not in text.lower()


def test_an_undefined_statistic_is_written_with_its_reason(data):  # noqa: F811
    round_, run = data
    # Every judge call failed: no unit has a verdict, so agreement is undefined.
    JudgeTask.objects.filter(run=run).update(status=JudgeTask.Status.FAILED)
    researcher = _user(RESEARCHER)
    reason = "no units with both a judge verdict and a human consensus"

    text = _text(_pdf(client_for(researcher), round_, run))
    flat = " ".join(text.split())
    assert "Gate not passed" in flat
    assert f"Agreement with the human majority: undefined: {reason} (n = 0 units)" in flat
    assert "8 whose judge call failed" in flat
    assert "nan" not in flat.lower()

    page = client_for(researcher).get(
        reverse("agreement", args=["hb"]), {"round": round_.pk, "run": run.pk}
    )
    body = page.content.decode()
    assert page.status_code == 200
    assert f'class="undefined" title="{reason}"' in body
    assert f"<code>percent_agreement</code>: {reason}" in body
    assert not re.search(r"\bnan\b", body, re.IGNORECASE)


def test_only_users_who_may_export_get_the_pdf(data):  # noqa: F811
    round_, run = data
    assert _pdf(client_for(_user(COORDINATOR)), round_, run).status_code == 200
    assert _pdf(client_for(_user(EXPERT)), round_, run).status_code == 403
    anonymous = _pdf(client_for(None), round_, run)
    assert anonymous.status_code == 302 and "login" in anonymous["Location"]
    other = client_for(_user(RESEARCHER)).get(
        reverse("agreement-pdf", args=["hb"]), {"round": round_.pk + 999, "run": run.pk}
    )
    assert other.status_code == 404


def test_the_page_prints_and_links_the_pdf(data):  # noqa: F811
    round_, run = data
    page = client_for(_user(RESEARCHER)).get(
        reverse("agreement", args=["hb"]), {"round": round_.pk, "run": run.pk}
    )
    body = page.content.decode()
    assert f"{reverse('agreement-pdf', args=['hb'])}?round={round_.pk}&amp;run={run.pk}" in body
    assert "leaderboard/print.css" in body
    assert 'class="print-only"' in body and f"#{run.pk}" in body
    exports = client_for(_user(COORDINATOR)).get(reverse("exports", args=["hb"]))
    assert reverse("agreement-pdf", args=["hb"]) in exports.content.decode()
