"""The corrected section of the leaderboard page and the corrected board over the API."""

from django.test import Client
from django.urls import reverse

from leaderboard.management.commands.load_demo import DEMO_JUDGE, DEMO_PASSWORD
from tests.leaderboard.test_corrected_board import ROUND, built, world  # noqa: F401


def _client(username: str = "researcher", language: str = "en") -> Client:
    client = Client()
    client.login(username=username, password=DEMO_PASSWORD)
    client.cookies["django_language"] = language
    return client


def _section(client: Client, **query) -> str:
    response = client.get(
        reverse("leaderboard-corrected", args=["demo"]),
        {"judge": DEMO_JUDGE, "round": ROUND, **query},
    )
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


def test_the_leaderboard_page_loads_the_corrected_section(world):  # noqa: F811
    page = _client().get(reverse("leaderboard", args=["demo"]), {"judge": DEMO_JUDGE})
    html = page.content.decode()
    assert 'id="corrected"' in html
    assert reverse("leaderboard-corrected", args=["demo"]) + "?profile=heartbench&amp;run=" in html


def test_the_section_reads_each_system_in_plain_words(world):  # noqa: F811
    html = _section(_client())
    assert "Round 校正轮: 30 of its 33 sampled responses are labelled" in html
    assert html.count("The experts&#x27; votes") + html.count("The experts' votes") >= 3
    assert "Rank set" in html and "Judge bias" in html
    assert 'id="corrected-bias-test"' in html
    assert "The largest bias is the judge&#x27;s on" in html or "The largest bias" in html


def test_the_section_renders_in_chinese(world):  # noqa: F811
    html = _section(_client(language="zh-hans"))
    assert "校正轮" in html and 'id="corrected-reading"' in html


def test_too_few_labelled_responses_read_as_undefined_with_the_reason(world):  # noqa: F811
    html = _section(_client(), round="Demo round")
    assert (
        "too few labelled responses (rated in full by the round&#x27;s experts) to give an interval"
        in html
    )
    assert "has no corrected score" in html


def test_an_unknown_round_is_a_clear_400_not_a_500(world):  # noqa: F811
    response = _client().get(
        reverse("leaderboard-corrected", args=["demo"]), {"judge": DEMO_JUDGE, "round": "nope"}
    )
    assert response.status_code == 400
    assert "no review round &#x27;nope&#x27;" in response.content.decode()
    api = _client().get(
        reverse("api-leaderboard-corrected", args=["demo"]), {"judge": DEMO_JUDGE, "round": "nope"}
    )
    assert api.status_code == 400 and "nope" in api.json()["detail"]
    bad = _client().get(
        reverse("api-leaderboard-corrected", args=["demo"]), {"profile": "other", "round": ROUND}
    )
    assert bad.status_code == 400


def test_the_api_gives_the_commands_numbers_with_reasons_in_words(world):  # noqa: F811
    response = _client().get(
        reverse("api-leaderboard-corrected", args=["demo"]),
        {"judge": DEMO_JUDGE, "round": "Demo round"},
    )
    data = response.json()
    assert data["corrected_by"]["round"] == "Demo round"
    row = data["rows"][0]
    assert row["overall"]["corrected"] is None
    assert row["overall"]["reason"] == "ppi_too_few_labelled"
    assert row["overall"]["reason_text"].startswith("too few labelled responses")
    full = (
        _client()
        .get(
            reverse("api-leaderboard-corrected", args=["demo"]),
            {"judge": DEMO_JUDGE, "round": ROUND},
        )
        .json()
    )
    assert all(r["overall"]["corrected"] is not None for r in full["rows"])


def test_without_a_round_the_newest_rated_round_corrects(world):  # noqa: F811
    from annotation.models import Benchmark, ReviewRound

    ReviewRound.objects.create(benchmark=Benchmark.objects.get(slug="demo"), name="尚未评分的轮次")
    response = _client().get(reverse("leaderboard-corrected", args=["demo"]), {"judge": DEMO_JUDGE})
    assert "Round 校正轮: 30 of its 33 sampled responses are labelled" in response.content.decode()


def test_the_corrected_board_is_read_in_a_fixed_number_of_queries(
    world,  # noqa: F811
    django_assert_num_queries,
):
    client = _client()
    query = {"judge": DEMO_JUDGE, "round": ROUND}
    # Session, user, permissions; the benchmark; the judge, its runs; the round; the board's
    # systems, failed counts and verdicts; the judged tasks' rubric versions; the round's
    # items, their criteria and the vote counts.
    with django_assert_num_queries(14):
        client.get(reverse("api-leaderboard-corrected", args=["demo"]), query)
    # The section adds the abilities' names and the benchmark's rounds.
    with django_assert_num_queries(16):
        client.get(reverse("leaderboard-corrected", args=["demo"]), query)


def test_a_bias_wholly_outside_five_points_is_named(world):  # noqa: F811
    data = (
        _client()
        .get(
            reverse("api-leaderboard-corrected", args=["demo"]),
            {"judge": DEMO_JUDGE, "round": ROUND},
        )
        .json()
    )
    named = {item["system"] for item in data["bias_test"]["beyond_margin"]}
    expected = {
        row["system"]
        for row in data["rows"]
        if row["overall"]["bias_ci_low"] > 5 or row["overall"]["bias_ci_high"] < -5
    }
    assert named == expected and named  # the demo's judge is lenient with one system
    html = _section(_client())
    for system in named:
        assert f"The judge&#x27;s bias on {system} lies wholly outside ±5 points" in html
