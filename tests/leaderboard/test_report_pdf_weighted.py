"""The report PDF of a round drawn with unequal chances gives the interval weighted by the
inverse inclusion probabilities (read back with pypdf)."""

import pytest
from django.urls import reverse

from accounts.roles import RESEARCHER
from accounts.services import user_create_with_role
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401
from tests.leaderboard.test_report_pdf_corrected import _text

pytestmark = pytest.mark.django_db


def test_the_pdf_gives_the_weighted_interval_of_a_round_drawn_with_unequal_chances(data):  # noqa: F811
    from annotation.models import ReviewItem

    round_, run = data
    client = client_for(
        user_create_with_role(username="res", password="x-pass-12", role=RESEARCHER)
    )
    url = reverse("agreement-pdf", args=["hb"])
    params = {"round": round_.pk, "run": run.pk}
    assert "inclusion probabilities" not in _text(client.get(url, params).content)
    items = list(ReviewItem.objects.filter(round=round_).order_by("pk"))
    for item, chance in zip(items, (0.5, 0.25), strict=True):
        item.inclusion_probability = chance
    ReviewItem.objects.bulk_update(items, ["inclusion_probability"])
    text = _text(client.get(url, params).content)
    assert "95% interval weighted by the inverse inclusion probabilities: " in text
