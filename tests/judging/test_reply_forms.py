"""A judge's reply: criterion numbers are checked against the rubric's order (a reordered
reply is realigned by its numbers, never misread by position), and HeartBench's released
output form ({'reason': ..., 'detail': [...]}) is read as well as Concord's schema, each
parsed reply saying which form it used."""

import json

import pytest

from judging.replies import CONCORD, HEARTBENCH, ReplyInvalid, parse_reply


def concord(*verdicts) -> str:
    return json.dumps(
        {
            "analysis": "整体分析",
            "verdicts": [
                {"criterion": number, "reasoning": f"理由 {number}", "hit": hit}
                for number, hit in verdicts
            ],
        },
        ensure_ascii=False,
    )


def test_verdicts_in_rubric_order_are_read_in_order():
    reply = parse_reply(concord((1, True), (2, False), (3, False)), expected=3)
    assert [v.hit for v in reply.verdicts] == [True, False, False]
    assert reply.form == CONCORD


def test_a_reordered_reply_is_placed_by_its_criterion_numbers():
    reply = parse_reply(concord((3, False), (1, True), (2, False)), expected=3)
    assert [v.hit for v in reply.verdicts] == [True, False, False]
    assert [v.reasoning for v in reply.verdicts] == ["理由 1", "理由 2", "理由 3"]


def test_numbers_are_the_rubric_positions_shown_in_the_prompt():
    reply = parse_reply(concord((5, True), (2, False)), expected=2, numbers=[2, 5])
    assert [v.hit for v in reply.verdicts] == [False, True]


@pytest.mark.parametrize(
    "verdicts",
    [
        ((1, True), (1, False), (3, True)),  # a criterion named twice
        ((1, True), (2, False), (7, True)),  # one the rubric does not have
        ((1, True), ("2", False), (3, True)),  # not a number
    ],
)
def test_wrong_criterion_numbers_make_the_reply_invalid(verdicts):
    with pytest.raises(ReplyInvalid, match="criterion"):
        parse_reply(concord(*verdicts), expected=3)


def test_a_reply_without_numbers_is_read_in_order():
    content = json.dumps({"verdicts": [{"reasoning": "", "hit": True}, {"hit": False}]})
    assert [v.hit for v in parse_reply(content, expected=2).verdicts] == [True, False]


@pytest.mark.parametrize(
    "content",
    [
        "{'reason': '回应体现了「共情」', 'detail': [1, 0, 1]}",
        '{"reason": "回应体现了「共情」", "detail": [1, 0, 1]}',
        "```\n{\n  'reason':'回应体现了「共情」',\n  'detail':[1,0,1]\n}\n```",
        # The keys annotated as the released prompt shows them.
        "{\n  'reason'（String）:回应体现了「共情」,\n  'detail'（array of Integer）:[1,0,1]\n}",
    ],
)
def test_heartbench_detail_replies_are_accepted_and_marked(content):
    reply = parse_reply(content, expected=3)
    assert [v.hit for v in reply.verdicts] == [True, False, True]
    assert reply.form == HEARTBENCH
    assert "共情" in reply.analysis


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{'reason': 'x', 'detail': [1, 0]}", "2 verdicts for 3"),
        ("{'reason': 'x', 'detail': [1, 0, 2]}", "not 0 or 1"),
        ("{'reason': 'x', 'detail': [1, 0, 1, 1]}", "4 verdicts for 3"),
    ],
)
def test_heartbench_replies_are_never_padded_or_truncated(content, message):
    with pytest.raises(ReplyInvalid, match=message):
        parse_reply(content, expected=3)


@pytest.mark.django_db(transaction=True)
def test_each_attempt_records_the_form_of_its_reply(judged_benchmark, sim_config, simulator):
    from judging.models import JudgeAttempt
    from judging.services.lane_pool import pool_run
    from judging.services.runs import judge_run_start

    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems, config=sim_config())
    assert pool_run(run_id=run.pk, lanes=1, max_seconds=25) == "finished"
    forms = set(
        JudgeAttempt.objects.filter(task__run=run, outcome=JudgeAttempt.Outcome.OK).values_list(
            "reply_form", flat=True
        )
    )
    assert forms == {CONCORD}
