"""corrected.csv: the corrected board as a table, the same numbers as the command."""

import csv
import io
import json

from django.core.management import call_command
from django.urls import reverse

from annotation.models import ReviewRound
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.exports.files import export_filename
from leaderboard.management.commands.load_demo import DEMO_JUDGE
from tests.leaderboard.test_corrected_board import ROUND, built, world  # noqa: F401
from tests.leaderboard.test_corrected_pages import _client


def test_corrected_csv_has_the_commands_numbers_at_full_precision(world, capsys):  # noqa: F811
    run = board_runs(benchmark=world["board"].benchmark, judge=DEMO_JUDGE).runs[0]
    round_ = ReviewRound.objects.get(name=ROUND)
    response = _client().get(
        reverse("export-download", args=["demo", "corrected", "csv-raw"]),
        {"round": round_.pk, "run": run.pk, "profile": "heartbench-code"},
    )
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    call_command(
        "leaderboard",
        "--benchmark",
        "demo",
        "--run",
        str(run.pk),
        "--corrected-by",
        ROUND,
        "--json",
        "--profile",
        "heartbench-code",
    )
    payload = json.loads(capsys.readouterr().out)
    (system,) = payload["rows"]
    overall = next(row for row in rows if row["score"] == "overall")
    assert overall["system"] == system["system"] and overall["round"] == ROUND
    assert float(overall["corrected"]) == system["overall"]["corrected"]
    assert float(overall["ci_low"]) == system["overall"]["ci_low"]
    abilities = {row["name"]: row for row in rows if row["score"] == "ability"}
    assert set(abilities) == set(system["abilities"])
    undefined = [row for row in rows if row["corrected"] == ""]
    assert all(row["reason"] == "ppi_too_few_labelled" for row in undefined)
    assert {row["score"] for row in rows} >= {"overall", "ability", "category", "difficulty"}
    assert (
        export_filename(
            slug="demo", kind="corrected", fmt="csv", round_id=4, run_id=1, profile="heartbench"
        )
        == "demo-corrected-round4-run1-heartbench.csv"
    )


def test_corrected_export_needs_a_round(world):  # noqa: F811
    run = board_runs(benchmark=world["board"].benchmark, judge=DEMO_JUDGE).runs[0]
    response = _client().get(
        reverse("export-download", args=["demo", "corrected", "csv"]), {"run": run.pk}
    )
    assert response.status_code == 400
