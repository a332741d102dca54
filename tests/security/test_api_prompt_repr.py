"""Attacker's finding 28: an imported judge has no prompt, and the API showed its prompt as
Python's text for a method of None ("<method-wrapper '__str__' of NoneType object at
0x7f8e…>"). It is null; a judge with a prompt shows the prompt's name and version."""

import json

from django.test import Client
from rest_framework.authtoken.models import Token

from accounts.roles import COORDINATOR
from judging.models import JudgeRun


def test_an_imported_judge_without_a_prompt_shows_null_not_a_python_repr(world):
    token = Token.objects.create(user=world["users"][COORDINATOR])
    api = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    run = JudgeRun.objects.get(judge_version__config__name="matrix-judge")
    assert run.prompt is None and run.judge_version.prompt is None
    configs = api.get("/api/judge-configs/")
    runs = api.get("/api/judge-runs/")
    detail = api.get(f"/api/judge-runs/{run.pk}/")
    for response in (configs, runs, detail):
        assert response.status_code == 200
        text = json.dumps(response.json())
        assert "method-wrapper" not in text and "NoneType" not in text and " at 0x" not in text
    run_rows = runs.json()["results"] if "results" in runs.json() else runs.json()
    assert next(r for r in run_rows if r["id"] == run.pk)["prompt"] is None
    assert detail.json()["prompt"] is None
    config_rows = configs.json()["results"] if "results" in configs.json() else configs.json()
    judge = next(c for c in config_rows if c["name"] == "matrix-judge")
    assert json.dumps(judge).count('"prompt": null') >= 1
