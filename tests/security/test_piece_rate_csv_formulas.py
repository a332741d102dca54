"""Attacker's finding 27: the piece-rate CSV wrote usernames such as "+76964+1" and "@76964"
as they are, and a spreadsheet runs them as formulas. The file is spreadsheet-safe, as every
other CSV export is (core.tables)."""

import csv
import io
from decimal import Decimal

from django.urls import reverse

from accounts.roles import COORDINATOR, EXPERT
from accounts.services import user_create_with_role
from annotation.models import ReviewRound


def test_the_piece_rate_csv_does_not_let_a_username_run_as_a_formula(world, client):
    round_ = ReviewRound.objects.get(name="matrix")
    hostile = ["+76964+1", "@76964", "=1+1", "-2+3"]
    for name in hostile:
        round_.experts.add(
            user_create_with_role(username=name, password="x-pass-1234", role=EXPERT)
        )
    ReviewRound.objects.filter(pk=round_.pk).update(rate_per_item=Decimal("12.50"))
    client.force_login(world["users"][COORDINATOR])
    response = client.get(reverse("review-piece-rate", args=[round_.pk]))
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    names = {row[0] for row in rows[1:]}
    for name in hostile:
        assert name not in names
        assert "'" + name in names
    assert "m-expert" in names  # an ordinary name stays as it is
    amounts = [row[2] for row in rows[1:]]
    assert "12.50" in amounts  # numbers stay numbers
