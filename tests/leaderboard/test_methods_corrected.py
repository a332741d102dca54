"""The methods section's corrected scores are the corrected board's own: the same numbers as
`leaderboard --corrected-by ROUND`, for the same judge and round, and PPI++ is cited; a round
made by importing votes is described as such."""

import json

import pytest
from django.core.management import call_command

from leaderboard.management.commands.load_demo import DEMO_JUDGE
from leaderboard.methods.corrected import ENTRY_KEYS
from tests.leaderboard.test_corrected_board import ROUND, built, world  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db


def test_corrected_scores_equal_the_corrected_boards(world, capsys):  # noqa: F811
    capsys.readouterr()
    call_command(
        "leaderboard",
        "--benchmark",
        "demo",
        "--judge",
        DEMO_JUDGE,
        "--corrected-by",
        ROUND,
        "--json",
    )
    board = json.loads(capsys.readouterr().out)
    call_command(
        "methods", "--benchmark", "demo", "--round", ROUND, "--judge", DEMO_JUDGE, "--json"
    )
    methods = json.loads(capsys.readouterr().out)
    corrected = methods["corrected"]
    assert corrected["profile"] == board["profile"] == "heartbench"
    assert corrected["labelled_responses"] == board["corrected_by"]["labelled_responses"]
    assert [row["system"] for row in corrected["rows"]] == [row["system"] for row in board["rows"]]
    for mine, theirs in zip(corrected["rows"], board["rows"], strict=True):
        assert {key: mine[key] for key in ENTRY_KEYS} == {
            key: theirs["overall"][key] for key in ENTRY_KEYS
        }
    assert corrected["bias_test"]["p_value"] == board["bias_test"]["p_value"]
    first = next(row for row in board["rows"] if row["overall"]["corrected"] is not None)
    text = methods["text"]
    assert f"{first['system']}, judge {first['overall']['judge']:.2f}, corrected " in text
    assert f"{first['overall']['corrected']:.2f}" in text
    assert "Angelopoulos, A. N., Duchi, J. C., & Zrnic, T. (2023)" in text
    assert methods["citations"][-1].startswith("Angelopoulos")
    # The round's votes were imported: its sampling and blinding are not Concord's to state.
    assert methods["sample"]["imported"] and "were chosen outside Concord" in text
