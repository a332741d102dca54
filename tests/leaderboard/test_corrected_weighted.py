"""The corrected board reads each response's inclusion probability from the round: a round
sampled by system (one chance per system) gives the plain numbers exactly, and the board
says which design it used and whether weights entered."""

import json

import pytest

from annotation.models import ReviewItem, ReviewRound
from leaderboard.corrected.inputs import design_probabilities
from tests.leaderboard.test_corrected_board import ROUND, _command, built, world  # noqa: F401


@pytest.mark.django_db
def test_one_chance_per_system_gives_the_plain_corrected_board(world, capsys):  # noqa: F811
    plain = _command(capsys)
    round_ = ReviewRound.objects.get(name=ROUND)
    round_.sampling = "by_system"
    round_.save(update_fields=["sampling"])
    items = ReviewItem.objects.filter(round=round_).select_related("response__system")
    for item in items:
        item.inclusion_probability = 0.3 if item.response.system.name.endswith("A") else 0.7
    ReviewItem.objects.bulk_update(items, ["inclusion_probability"])
    weighted = _command(capsys)
    assert weighted["corrected_by"]["sampling"] == {"design": "by_system", "weighted": False}
    assert plain["corrected_by"]["sampling"] == {"design": "proportional", "weighted": False}
    for key in ("rows", "ranks", "bias_test"):
        assert json.dumps(weighted[key]) == json.dumps(plain[key])


def test_the_design_gives_every_response_its_chance():
    items = [
        # (response, group, recorded chance, reference)
        (1, "A", 0.25, False),
        (2, "A", 0.25, False),
        (3, "B", 0.5, False),
        (4, "B", None, True),  # a reference item: not drawn at random, its group's chance
    ]
    population = {1: "A", 2: "A", 5: "A", 3: "B", 4: "B", 6: "B", 7: "C"}
    chances = design_probabilities(items, population)
    assert chances == {1: 0.25, 2: 0.25, 5: 0.25, 3: 0.5, 4: 0.5, 6: 0.5, 7: None}
    # Two chances in one group: the design is not one this reads, so no response of the
    # group gets a guessed chance (the drawn ones keep their own).
    items.append((8, "A", 0.5, False))
    population[8] = "A"
    chances = design_probabilities(items, population)
    assert chances[5] is None and chances[1] == 0.25 and chances[8] == 0.5
