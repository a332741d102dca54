"""Few-shot examples from a round's calibration part: proposed from the disagreements the
experts settled (never from held-out items), kept and edited by the coordinator, rendered
into the prompt as a versioned block, and, with a simulator that learns from examples,
really better on the held-out items than the parent; with one that does not, no change."""

import datetime as dt
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, Benchmark, ReviewItem, System
from annotation.selectors.review import item_criteria
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeRun, PromptTemplate
from judging.prompting import PromptCriterion, build_judge_request, examples_of
from judging.selectors.fewshot import fewshot_proposals
from judging.services.fewshot import Kept, judge_version_with_examples
from judging.services.judge_derive import DeriveRefused
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start
from judging.simulator.behaviour import build_reply, parse_request
from leaderboard.selection.selectors.versions import judge_selection
from tests.conftest import jsonl_bytes, judge_config, lines, question

pytestmark = pytest.mark.django_db(transaction=True)

CASES = 12


def gold(position: int, response: int) -> bool:
    """The experts' verdict: the first two criteria of each rubric are mostly met, the
    last two mostly not (one unit in seven the other way)."""
    typical = position <= 2
    return typical if (response * 5 + position) % 7 else not typical


@pytest.fixture
def split_round(db):
    rows = [question(f"q{i:02d}") for i in range(1, CASES + 1)]
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb")
    for name in ("Alpha", "Beta"):
        answers = [
            {"question_id": f"q{i:02d}", "response": f"{name} 回答 {i}"}
            for i in range(1, CASES + 1)
        ]
        responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="hb", system_name=name)
    experts = [
        user_create_with_role(username=f"fs{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    round_ = round_open(
        benchmark=Benchmark.objects.get(slug="hb"),
        name="R",
        systems=list(System.objects.all()),
        experts=experts,
        fraction=1.0,
        calibration_share=0.5,
    )
    for number, expert in enumerate(experts):
        while (a := assignment_next(expert=expert, round_=round_)) is not None:
            Assignment.objects.filter(pk=a.pk).update(assigned=a.assigned - dt.timedelta(hours=1))
            votes = [
                VoteInput(
                    c.pk,
                    gold(c.position, a.item.response_id),
                    f"专家{number}：第{c.position}条" if number == 0 else "",
                )
                for c in item_criteria(assignment=a)
            ]
            assignment_submit(
                assignment=a, votes=votes, comment="", active_seconds=10, base_revision=0
            )
    return round_


def run_of(version, round_) -> JudgeRun:
    run = judge_run_start(
        benchmark=round_.benchmark,
        systems=list(System.objects.all()),
        version=version,
        fresh_calls=True,
        probe=False,
    )
    run_here(run_id=run.pk, lanes=2)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FINISHED
    return run


@pytest.fixture
def parent(split_round, simulator):
    config = judge_config(
        name="sim",
        base_url=simulator.base_url,
        model="concord-sim",
        max_concurrency=4,
        timeout_seconds=5,
        backoff_seconds=0.01,
        prompt=PromptTemplate.objects.get(name="judge-zh", version=1),
        is_simulated=True,
    )
    run_of(config.current_version, split_round)
    return config.current_version


def held_out_entry(round_) -> dict:
    [entry] = judge_selection(round_=round_, resamples=200)["calibration_to_held_out"]
    return entry


def test_proposals_come_from_calibration_disagreements_only(split_round, parent):
    proposals = fewshot_proposals(version=parent, round_=split_round, budget=100000)
    parts = dict(ReviewItem.objects.filter(round=split_round).values_list("pk", "part"))
    assert proposals.candidates
    assert {parts[c.item] for c in proposals.candidates} == {"calibration"}
    for c in proposals.candidates:
        assert c.expert_hit != c.judge_hit and c.how == "unanimous"
        assert c.explanation.startswith("专家0：第")
    # The parent disagrees on held-out items too; none of them is proposed, nor accepted.
    held_out = ReviewItem.objects.filter(round=split_round, part="held_out").first()
    criterion = held_out.rubric_version.criteria.first()
    with pytest.raises(DeriveRefused, match="calibration part"):
        judge_version_with_examples(
            parent=parent,
            round_=split_round,
            kept=[Kept(held_out.pk, criterion.pk, "leak")],
            note="leak",
        )


def test_the_budget_spreads_the_examples_over_the_abilities(split_round, parent):
    everything = fewshot_proposals(version=parent, round_=split_round, budget=100000)
    assert len(everything.chosen) == len(everything.candidates)
    one_each = max(c.tokens for c in everything.candidates) * 4
    small = fewshot_proposals(version=parent, round_=split_round, budget=one_each)
    assert small.tokens <= one_each < everything.tokens
    assert {c.ability for c in small.chosen} == {c.ability for c in everything.candidates}
    # The examples the experts explained come first.
    assert all(c.explanation for c in small.chosen)


def test_examples_are_a_versioned_block_and_part_of_the_fingerprint(split_round, parent):
    proposals = fewshot_proposals(version=parent, round_=split_round)
    kept = [Kept(c.item, c.criterion, c.explanation) for c in proposals.chosen]
    first = judge_version_with_examples(
        parent=parent, round_=split_round, kept=kept, note="examples"
    )
    assert (first.parent, first.derived_from_round) == (parent, split_round)
    assert first.settings()["examples"]["block_version"] == 1
    assert first.fingerprint != parent.fingerprint
    with pytest.raises(DeriveRefused, match="already"):
        judge_version_with_examples(parent=parent, round_=split_round, kept=kept, note="again")
    edited = [Kept(kept[0].item, kept[0].criterion, "专家改写的理由 {不是占位符}"), *kept[1:]]
    second = judge_version_with_examples(
        parent=parent, round_=split_round, kept=edited, note="edited"
    )
    assert second.fingerprint != first.fingerprint
    assert second.examples[0]["explanation"] == "专家改写的理由 {不是占位符}"
    request = build_judge_request(
        system_text=parent.prompt.system_text,
        user_text=parent.prompt.user_text,
        dialogue=[{"role": "A", "content": "你好"}],
        response="回复",
        criteria=[PromptCriterion(1, "情绪感知", 3, "指出用户的疲惫和压力感", False)],
        structured=True,
        examples=examples_of(second.examples),
        language=parent.prompt.language,
    )
    user = request.messages[-1]["content"]
    assert user.startswith('<examples version="1">') and "</examples>" in user
    assert "专家结论：" in user and "专家改写的理由 {不是占位符}" in user
    english = build_judge_request(
        system_text="",
        user_text="Judge {response}",
        dialogue=[],
        response="R",
        criteria=[],
        structured=False,
        examples=examples_of(second.examples[:1]),
        language="en",
    ).messages[-1]["content"]
    assert "Experts' verdict:" in english and english.endswith("Judge R")


def test_the_command_proposes_and_makes_the_version(split_round, parent):
    out = StringIO()
    call_command("judge_fewshot", "--round", "R", "--judge", "sim", "--json", stdout=out)
    proposed = json.loads(out.getvalue())
    assert proposed["examples"] and "created" not in proposed
    assert {e["experts"] for e in proposed["examples"]} <= {"met", "not met"}
    out = StringIO()
    call_command(
        "judge_fewshot", "--round", "R", "--judge", "sim", "--create", "--json", stdout=out
    )
    assert json.loads(out.getvalue())["created"] == "sim v2"
    with pytest.raises(CommandError, match="positive"):
        call_command("judge_fewshot", "--round", "R", "--judge", "sim", "--budget", "0")


@pytest.mark.parametrize("learns", [0.9, 0.0])
def test_a_judge_that_learns_from_examples_improves_on_held_out_items(
    split_round, parent, simulator, learns
):
    simulator.configure(learns_from_examples=learns)
    proposals = fewshot_proposals(version=parent, round_=split_round)
    derived = judge_version_with_examples(
        parent=parent,
        round_=split_round,
        kept=[Kept(c.item, c.criterion, c.explanation) for c in proposals.chosen],
        note="few-shot examples",
    )
    run_of(derived, split_round)
    entry = held_out_entry(split_round)
    comparison = entry["comparison"]
    assert entry["derived"] == "sim v2" and entry["on_its_calibration_round"]
    assert comparison["responses"] == 12  # the held-out half only
    if learns:
        assert entry["verdict"] == "improved"
        assert comparison["derived_right_only"] > 3 * comparison["parent_right_only"]
    else:
        # The examples are in the prompt, and change nothing.
        assert entry["verdict"] == "no_detectable_change"
        assert comparison["derived_right_only"] == comparison["parent_right_only"] == 0


def test_the_simulator_reads_examples_only_in_learning_mode():
    block = (
        '<examples version="1">\n示例\n\n<example n="1">\n评分标准 [情绪感知]: 指出疲惫\n'
        "专家结论： 符合\n理由： 有\n</example>\n\n</examples>\n\n"
    )
    prompt = "评分标准：\n1. [情绪感知 | weight 3] 指出疲惫\nCRITERIA_COUNT: 1\nverdicts"
    body = {"model": "m", "messages": [{"role": "user", "content": prompt}]}
    taught = {"model": "m", "messages": [{"role": "user", "content": block + prompt}]}
    plain, learning = parse_request(body), parse_request(taught)
    assert plain.key == learning.key and learning.learned == {"指出疲惫": True}
    misses = [i for i in range(40) if not _hit(body, i, 0.0)]
    assert misses, "some seed draws a miss"
    assert all(_hit(taught, i, 0.0) == _hit(body, i, 0.0) for i in range(40))
    assert all(_hit(taught, i, 1.0) for i in range(40))


def _hit(body: dict, seed: int, learns: float) -> bool:
    reply = build_reply(parse_request({**body, "seed": seed}), 0.5, learns=learns)
    return json.loads(reply.content)["verdicts"][0]["hit"]


def test_the_coordinator_edits_the_proposals_and_makes_the_version(
    split_round, parent, coordinator
):
    from django.urls import reverse

    from tests.conftest import client_for

    client = client_for(coordinator)
    url = reverse("judge-fewshot", args=[parent.config_id, parent.number])
    assert (
        reverse("judge-fewshot", args=[parent.config_id, 1])
        in client.get(reverse("judge-config", args=[parent.config_id])).content.decode()
    )
    page = client.get(url, {"round": split_round.pk})
    assert page.status_code == 200
    rows = page.context["rows"]
    assert rows and 'id="fewshot-make"' in page.content.decode()
    form = {"round": split_round.pk, "note": "examples", "example": [r["key"] for r in rows]}
    for row in rows[1:]:  # the first is dropped, the second reworded
        form[f"keep-{row['key']}"] = "on"
        form[f"explanation-{row['key']}"] = row["explanation"]
    form[f"explanation-{rows[1]['key']}"] = "Reworded by the coordinator."
    made = client.post(url, form)
    assert made.status_code == 302
    derived = parent.config.versions.get(number=2)
    assert len(derived.examples) == len(rows) - 1
    assert derived.examples[0]["explanation"] == "Reworded by the coordinator."
    # A held-out unit slipped into the form is refused, and nothing is made.
    held_out = ReviewItem.objects.filter(round=split_round, part="held_out").first()
    leak = f"{held_out.pk}-{held_out.rubric_version.criteria.first().pk}"
    refused = client.post(
        url, {"round": split_round.pk, "note": "leak", "example": [leak], f"keep-{leak}": "on"}
    )
    assert refused.status_code == 400 and parent.config.versions.count() == 2
    assert 'id="fewshot-error"' in refused.content.decode()
    zh = client.get(url, {"round": split_round.pk}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert zh.status_code == 200
    assert client.get(url, {"round": split_round.pk, "budget": "x"}).status_code == 200
    assert client.get(url, {"round": "999999"}).status_code == 400
