"""A judge run's failure reasons are shown in the reader's language. Judging records them
in English (for logs and exports); only the page says them again, through the catalog."""

import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from judging.failure_text import failure_text
from judging.replies import ReplyInvalid, parse_reply
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start

ENGLISH_WORDS = re.compile(r"\b(?:attempt|gave up|verdicts? for|reply|endpoint|Expecting)\b")


def zh(message: str) -> str:
    with translation.override("zh-hans"):
        return failure_text(message)


@pytest.mark.django_db(transaction=True)
def test_the_run_page_says_why_responses_failed_in_chinese(
    judged_benchmark, sim_config, simulator, researcher
):
    simulator.configure(rate_wrong_count=1.0)
    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems, config=sim_config(max_attempts=2))
    run_here(run_id=run.pk, lanes=2)
    recorded = run.tasks.first().last_error
    assert "gave up after 2 attempts" in recorded  # judging's record is unchanged
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(researcher)
    page = client.get(reverse("judge-run", args=[run.pk])).content.decode()
    assert recorded not in page
    assert "放弃" in page and "第 2 次尝试" in page
    assert not ENGLISH_WORDS.search(zh(recorded)), zh(recorded)


@pytest.mark.parametrize(
    "content",
    [
        "",
        "not json",
        json.dumps({"analysis": "x"}),
        json.dumps({"verdicts": [1, 2, 3, 4]}),
        json.dumps({"verdicts": [{"hit": "yes"}] * 4}),
        json.dumps({"verdicts": [{"hit": True}]}),
    ],
)
def test_every_reply_problem_is_said_in_chinese(content):
    try:
        parse_reply(content, expected=4)
    except ReplyInvalid as exc:
        message = f"attempt 3: {exc}"
    else:
        raise AssertionError("the reply should be refused")
    said = zh(message)
    assert said != message
    assert not ENGLISH_WORDS.search(said), said
    assert zh(message + " (gave up after 3 attempts)").endswith("次后放弃）")


@pytest.mark.parametrize(
    "message",
    [
        "the request timed out",
        "rate limited (HTTP 429)",
        "HTTP 503 from the endpoint",
        "the endpoint could not be reached",
        "the endpoint answered HTTP 200 with text/html, not a chat completion; is the base "
        "URL the API's (it often ends in /v1)?",
        "no outcome was recorded (its lane or worker stopped)",
    ],
)
def test_endpoint_failures_are_said_in_chinese(message):
    said = zh(f"attempt 1: {message}")
    assert not ENGLISH_WORDS.search(said), said


def test_an_unknown_reason_is_shown_as_recorded():
    assert zh("attempt 1: something new") == zh("attempt 1: something new")
    assert "something new" in zh("attempt 1: something new")
