"""Every reading names the judge it describes: by default the published judge, else the
gate-evaluated one, else the judge that ran last, and the reader may choose another."""

import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from judging.services.judgments_import import judgments_import
from tests.conftest import client_for, jsonl_bytes, lines
from tests.leaderboard.test_gate_integrity import (  # noqa: F401 - the shared world
    CASES,
    api,
    open_round,
    rate,
    record,
    world,
)

pytestmark = pytest.mark.django_db


def second_judge(name: str = "later") -> None:
    """A second judge, imported after the first: the newest to finish a run."""
    judgments_import(
        chunks=lines(jsonl_bytes([{"question_id": q, "score_detail": [0] * 4} for q in CASES])),
        benchmark_slug="gi",
        system_name="Sys",
        judge_name=name,
    )


def health(capsys, *extra) -> dict:
    call_command("rubric_health", "--benchmark", "gi", "--json", *extra)
    return json.loads(capsys.readouterr().out)


def test_rubric_health_names_its_judge_and_takes_another(world, researcher, capsys):  # noqa: F811
    benchmark, experts = world
    second_judge()
    # Nothing published or evaluated: the judge that ran last, and the JSON says why.
    assert health(capsys)["judge"] == {
        "name": "later v1",
        "config": "later",
        "number": 1,
        "picked_by": "latest",
    }
    rate(open_round(benchmark, experts, "A"), experts, agreeing=4)
    assert record(researcher, "A").json()["passed"] is True  # the first judge, "judge"
    evaluated = health(capsys)
    assert (evaluated["judge"]["name"], evaluated["judge"]["picked_by"]) == (
        "judge v1",
        "gate_evaluated",
    )
    chosen = health(capsys, "--judge", "later")
    assert (chosen["judge"]["name"], chosen["judge"]["picked_by"]) == ("later v1", "judge")
    # The two judges read the same votes differently: the disagreement follows the judge.
    disagreement = [row["judge_disagreement"]["value"] for row in evaluated["abilities"]]
    other = [row["judge_disagreement"]["value"] for row in chosen["abilities"]]
    assert disagreement != other
    with pytest.raises(CommandError, match="No judge named nobody"):
        health(capsys, "--judge", "nobody")


def test_the_pages_name_their_judge(world, researcher, coordinator):  # noqa: F811
    benchmark, experts = world
    second_judge()
    rate(open_round(benchmark, experts, "A"), experts, agreeing=4)
    record(researcher, "A")
    client = client_for(coordinator)
    page = client.get(reverse("rubric-health", args=["gi"])).content.decode()
    assert "Judge: judge v1" in page and "the judge of the newest gate evaluation" in page
    page = client.get(reverse("rubric-health", args=["gi"]), {"judge": "later"}).content.decode()
    assert "Judge: later v1" in page and "the judge you chose" in page
    assert client.get(reverse("rubric-health", args=["gi"]), {"judge": "x"}).status_code == 404
    board = client.get(reverse("leaderboard", args=["gi"])).content.decode()
    assert "Judge judge v1" in board and "the judge of the newest gate evaluation" in board
    api(coordinator).post(reverse("api-leaderboards", args=["gi"]), {"judge": "judge"})
    board = client.get(reverse("leaderboard", args=["gi"])).content.decode()
    assert "the judge of the newest published leaderboard" in board


def test_the_round_banner_and_card_agree_and_name_their_judge(world, researcher, coordinator):  # noqa: F811
    from leaderboard.sequential.services import RECORDED, round_decision_check

    benchmark, experts = world
    second_judge()  # "later" ran last: the default while nothing is evaluated
    round_ = open_round(benchmark, experts, "A")
    rate(round_, experts, agreeing=4)  # "later" says "not met" everywhere: it fails
    assert round_decision_check(round_id=round_.pk) == RECORDED
    record(researcher, "A")  # "judge" is now the gate-evaluated judge
    client = client_for(coordinator)
    page = client.get(reverse("review-round", args=[round_.pk])).content.decode()
    assert "judge later v1" in page
    card = client.get(reverse("round-sequential", args=[round_.pk])).content.decode()
    assert "Judge: later v1" in card and "the judge of the round&#x27;s recorded decision" in card
    assert 'data-decision="fail"' in card
    other = client.get(reverse("round-sequential", args=[round_.pk]), {"judge": "judge"})
    assert "Judge: judge v1" in other.content.decode()
    assert 'data-decision="fail"' not in other.content.decode()
    missing = client.get(reverse("round-sequential", args=[round_.pk]), {"judge": "nobody"})
    assert missing.status_code == 404
