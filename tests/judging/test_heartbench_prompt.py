"""HeartBench's released judge prompt, given as a text file, renders byte for byte as its
script renders it: the dialogue as Python prints the list of turns, the rubric as
"[dimension][score] content" lines, the count, and the whole as one user message."""

import hashlib
import json

import pytest
from django.core.management import call_command

from judging.heartbench_prompt import HEARTBENCH_JUDGE_PROMPT
from judging.models import JudgeAttempt, Verdict
from judging.prompt_check import check_placeholders
from judging.prompting import PromptCriterion, build_judge_request
from judging.replies import HEARTBENCH

# SHA-256 of PROMPT_TEMPLATE in inclusionAI/HeartBench heartbench/score_answers.py (eed85cb).
RELEASED_SHA256 = "333b640f5b33e664f13d84221f3bfdea5b1127259f9209a1e0090cc1c3536157"

CASE = {
    "dialogue": [
        {"role": "A", "content": "最近加班太多了，我觉得自己快撑不住了。"},
        {"role": "B", "content": "他说'别想太多'，还说\"忍忍就好\"。"},
        {"role": "A", "content": "我该怎么办？\n真的好累。"},
    ],
    "rubric": [
        {"dimension": "情绪感知", "score": 3, "content": "指出用户的疲惫和压力感"},
        {"dimension": "言语表达", "score": -10, "content": "一次性给出 8 条或更多建议"},
        {"dimension": "其他", "score": None, "content": "没有回应用户，而是以用户的身份说话"},
    ],
    "response": "听起来你真的很累。愿意说说最近一周是怎么过的吗？",
}


def reference_prompt(row: dict) -> str:
    """The released script's rendering (score_answers.py, AnswerScorer.score_answers)."""
    rubric_str = "\n".join(
        f"[{item['dimension']}][{item['score']}] {item['content']}" for item in row["rubric"]
    )
    return HEARTBENCH_JUDGE_PROMPT.format(
        dialogue_history=row["dialogue"],
        response=row["response"],
        rubric=rubric_str,
        rubric_nums=len(row["rubric"]),
    )


def test_the_prompt_is_the_released_text():
    assert hashlib.sha256(HEARTBENCH_JUDGE_PROMPT.encode()).hexdigest() == RELEASED_SHA256
    check_placeholders("judge", "", HEARTBENCH_JUDGE_PROMPT)  # accepted as a prompt file


def test_concord_renders_it_byte_for_byte_as_the_script_does():
    request = build_judge_request(
        system_text="",
        user_text=HEARTBENCH_JUDGE_PROMPT,
        dialogue=CASE["dialogue"],
        response=CASE["response"],
        criteria=[
            PromptCriterion(i, c["dimension"], c["score"], c["content"], c["score"] is None)
            for i, c in enumerate(CASE["rubric"], start=1)
        ],
        structured=False,
    )
    assert request.messages == [{"role": "user", "content": reference_prompt(CASE)}]
    assert request.messages[0]["content"].encode() == reference_prompt(CASE).encode()


@pytest.mark.django_db(transaction=True)
def test_the_papers_protocol_runs_as_released(judged_benchmark, simulator, capsys, tmp_path):
    """HeartBench's prompt as a text file, structured output off: the simulator answers in
    HeartBench's own form, every reply is read, and each attempt says so."""
    prompt = tmp_path / "heartbench_judge.txt"
    prompt.write_text(HEARTBENCH_JUDGE_PROMPT, encoding="utf-8")
    call_command(
        "judge", "--benchmark", "hb", "--system", "Alpha", "--base-url", simulator.base_url,
        "--model", "concord-sim", "--prompt-file", str(prompt), "--plain-json", "--json",
    )  # fmt: skip
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["status"] == "finished" and summary["failed"] == 0 and summary["done"] > 0
    attempts = JudgeAttempt.objects.filter(outcome=JudgeAttempt.Outcome.OK)
    assert set(attempts.values_list("reply_form", flat=True)) == {HEARTBENCH}
    assert Verdict.objects.count() > 0
