"""The majority of the experts' votes on one unit; a tie is never resolved by a guess."""

import math

import pytest

from annotation.consensus import MAJORITY, NO_VOTES, TIE, majority


@pytest.mark.parametrize(
    ("votes", "label"),
    [
        ([True, True, False], True),
        ([False, True, False], False),
        ([True, True, True], True),
        (["a"], "a"),
        (["a", "a", "b", "c"], "a"),
        ([True, None, True], True),
        ([False, math.nan, True, False], False),
    ],
)
def test_the_label_with_most_votes_wins(votes, label):
    result = majority(votes)
    assert result.outcome == MAJORITY and result.is_majority
    assert result.label == label and type(result.label) is type(label)


def test_two_of_three_binary_votes_win():
    result = majority([True, False, True])
    assert (result.label, result.votes, result.top_votes) == (True, 3, 2)


@pytest.mark.parametrize(
    ("votes", "tied"),
    [
        ([True, False], (True, False)),
        ([True, False, None], (True, False)),
        (["a", "b", "c"], ("a", "b", "c")),
        (["b", "a", "a", "b", "c"], ("b", "a")),
    ],
)
def test_a_tie_is_reported_not_guessed(votes, tied):
    result = majority(votes)
    assert result.outcome == TIE and result.is_tie
    assert result.label is None and result.tied == tied


@pytest.mark.parametrize("votes", [[], [None, None], [math.nan], iter(())])
def test_no_votes(votes):
    result = majority(votes)
    assert result.outcome == NO_VOTES and result.label is None and result.votes == 0
    assert not result.is_majority and not result.is_tie


def test_labels_may_be_any_hashable():
    assert majority([("x", 1), ("x", 1), ("y", 2)]).label == ("x", 1)
