"""Commands that print a result print it as one JSON object with --json, and --json goes
with no other output format."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER

pytestmark = pytest.mark.django_db


def test_the_demo_loader_summarises_in_json():
    out = StringIO()
    call_command("load_demo", "--json", stdout=out)
    summary = json.loads(out.getvalue())
    assert summary["round"]
    assert {user["role"] for user in summary["users"]} == {COORDINATOR, RESEARCHER, EXPERT}


def test_agreement_report_refuses_json_with_csv():
    with pytest.raises(CommandError, match="--json prints JSON"):
        call_command(
            "agreement_report", "--benchmark", "none", "--round", "r", "--json", "--format", "csv"
        )
