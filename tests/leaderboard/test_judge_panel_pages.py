"""The judge panel page and API: the same result as `judge_panel --json`, in plain words on
the page, refused to those who may not read agreement reports, and honest when the round
is too small for the test."""

import pytest
from django.urls import reverse
from django.utils import translation

from tests.conftest import client_for
from tests.leaderboard.test_judge_panel import agrees_60, copies_majority, judge_import, seed

pytestmark = pytest.mark.django_db


def test_the_page_answers_in_plain_words(researcher):
    ids = seed(cases=11)
    judge_import(ids, "copycat", copies_majority)
    judge_import(ids, "coin", agrees_60)
    client = client_for(researcher)
    url = reverse("judge-panel", args=["hb"])
    page = client.get(url, {"judge": "copycat", "round": "R"})
    assert page.status_code == 200
    text = page.content.decode()
    assert "Can this judge replace an expert?" in text
    assert "At margin 0.1 the judge is as good as 3 of 3 experts: it passes" in text
    assert "Winning rate 100.0%" in text
    names = [row["expert"] for row in page.context["panel"]["experts"]]
    assert len(names) == 3 and all(name in text for name in names)
    assert "e0" not in names
    worse = client.get(url, {"judge": "coin", "epsilon": "0.2"}).content.decode()
    assert "At margin 0.2 the judge is as good as 0 of 3 experts: it does not pass" in worse
    assert "ε = 0.1" not in worse


def test_the_api_gives_the_commands_json_with_reasons_in_words(researcher):
    ids = seed(cases=3)
    judge_import(ids, "copycat", copies_majority)
    client = client_for(researcher)
    answer = client.get(reverse("api-judge-panel", args=["hb"]), {"judge": "copycat"})
    assert answer.status_code == 200
    data = answer.json()
    test = data["alt_test"]["0.15"]
    assert test["winning_rate"] is None and test["passed"] is None
    assert test["reason"] == "alt_few_experts:units=0;needed=3"
    assert test["reason_text"] == "0 experts rated enough responses; the test needs at least 3"
    assert test["experts"][0]["reason_text"].startswith("this expert rated 9 responses")
    assert set(data["f1"]) == {"judge", "experts"}
    bad = client.get(reverse("api-judge-panel", args=["hb"]), {"judge": "copycat", "epsilon": "x"})
    assert bad.status_code == 400 and "The margin x is not a number" in bad.json()["detail"]
    missing = client.get(reverse("api-judge-panel", args=["hb"]))
    assert missing.status_code == 400 and "Name the judge" in missing.json()["detail"]


def test_too_few_items_the_page_says_so_and_shows_no_verdict(researcher):
    ids = seed(cases=3)
    judge_import(ids, "copycat", copies_majority)
    page = client_for(researcher).get(reverse("judge-panel", args=["hb"]))
    text = page.content.decode()
    assert page.status_code == 200
    assert "At margin 0.1 there is no result: 0 experts rated enough responses" in text
    assert "this expert rated 9 responses; the test needs at least 30 per expert" in text
    assert "it passes" not in text and "does not pass" not in text
    assert "Winning rate" not in text


def test_bad_input_is_named_and_outsiders_are_refused(researcher, outsider, expert):
    ids = seed(cases=2)
    judge_import(ids, "copycat", copies_majority)
    url = reverse("judge-panel", args=["hb"])
    client = client_for(researcher)
    bad = client.get(url, {"judge": "copycat", "epsilon": "2"})
    assert bad.status_code == 400
    assert "The margin 2 is not a number between 0 and 1" in bad.content.decode()
    unknown = client.get(url, {"judge": "nobody"})
    assert unknown.status_code == 400 and "No judge named nobody" in unknown.content.decode()
    assert client_for(outsider).get(url).status_code == 403
    assert client_for(expert).get(url).status_code == 403
    assert client_for(None).get(url).status_code == 302
    api = reverse("api-judge-panel", args=["hb"])
    assert client_for(outsider).get(api, {"judge": "copycat"}).status_code == 403
    assert client_for(expert).get(api, {"judge": "copycat"}).status_code == 403


def test_the_agreement_page_links_to_the_panel_of_its_judge(researcher):
    ids = seed(cases=2)
    judge_import(ids, "copycat", copies_majority)
    page = client_for(researcher).get(reverse("agreement", args=["hb"]), {"judge": "copycat"})
    text = page.content.decode()
    assert 'id="judge-panel-link"' in text
    assert reverse("judge-panel", args=["hb"]) + "?round=" in text
    assert "judge=copycat" in text


def test_the_page_renders_in_chinese(researcher):
    ids = seed(cases=3)
    judge_import(ids, "copycat", copies_majority)
    with translation.override("zh-hans"):
        page = client_for(researcher).get(
            reverse("judge-panel", args=["hb"]), HTTP_ACCEPT_LANGUAGE="zh-hans"
        )
    text = page.content.decode()
    assert page.status_code == 200
    assert "专家标注轮次" in text and "评审模型与专家的一致性" in text


def test_the_page_queries_do_not_grow_with_the_round(researcher, django_assert_max_num_queries):
    ids = seed(cases=11)  # 33 responses, 132 units, 396 votes
    judge_import(ids, "copycat", copies_majority)
    client = client_for(researcher)
    url = reverse("judge-panel", args=["hb"])
    client.get(url, {"judge": "copycat"})  # warm the caches of names
    # Session, user, permissions; benchmark, judges, rounds; the gate policy, the round,
    # its items, the judge, its runs (agreement_evidence); the round's items, criteria,
    # pseudonyms, votes, tasks and verdicts (agreement_units): 17, whatever the size.
    with django_assert_max_num_queries(17):
        assert client.get(url, {"judge": "copycat"}).status_code == 200
