"""Over the API an undefined statistic keeps its reason's code, for programs, and gives it
in words in the caller's language next to it."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from judging.models import JudgeTask
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

pytestmark = pytest.mark.django_db


def _chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_the_report_api_gives_the_code_and_its_words(data, researcher):  # noqa: F811
    round_, run = data
    JudgeTask.objects.filter(run=run).update(status=JudgeTask.Status.FAILED)
    client = APIClient()
    client.force_authenticate(researcher)
    url = reverse("api-agreement", args=["hb"])
    params = {"round": round_.pk, "run": run.pk}

    english = client.get(url, params, HTTP_ACCEPT_LANGUAGE="en").json()
    assert english["undefined"]["percent_agreement"] == "no_judged_units"
    assert english["undefined_text"]["percent_agreement"] == (
        "no units with both a judge verdict and a human consensus"
    )
    assert english["gate"]["reason"] == "gate_no_units"
    assert english["gate"]["reason_text"] == "agreement is undefined: no units"

    chinese = client.get(url, params, HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    assert chinese["undefined"] == english["undefined"]
    assert _chinese(chinese["undefined_text"]["percent_agreement"])
    assert _chinese(chinese["gate"]["reason_text"])
