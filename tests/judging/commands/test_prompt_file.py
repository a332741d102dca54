"""A lab's own prompt from a file, with its placeholders checked, and a warning when its
language is not the benchmark's (against the simulator over HTTP)."""

import json

import pytest
from django.core.management import CommandError, call_command

from judging.models import JudgeRun, PromptTemplate

# The command judges in threads of its own, which see only committed rows.
pytestmark = pytest.mark.django_db(transaction=True)

OWN = {
    "system": "你是一名心理咨询督导，请逐条判断回复是否满足评分标准。",
    "user": "对话：\n{dialogue}\n\n回复：\n{response}\n\n评分标准（共 {criteria_count} 条）：\n"
    "{criteria}\n\n只输出符合以下结构的 JSON：{schema}",
}


def _judge(simulator, *extra):
    call_command(
        "judge", "--benchmark", "hb", "--system", "Alpha", "--base-url", simulator.base_url,
        "--model", "concord-sim", "--json", *extra,
    )  # fmt: skip


def test_a_prompt_file_is_checked_stored_and_used(judged_benchmark, simulator, tmp_path):
    path = tmp_path / "lab-judge.json"
    path.write_text(json.dumps(OWN, ensure_ascii=False), encoding="utf-8")
    _judge(simulator, "--prompt-file", str(path))
    prompt = PromptTemplate.objects.get(name="lab-judge")
    assert (prompt.version, prompt.kind, prompt.language) == (1, "judge", "zh-hans")
    run = JudgeRun.objects.get()
    assert run.judge_version.prompt == prompt
    assert set(run.tasks.values_list("status", flat=True)) == {"done"}
    # The same words again: the same version; other words: version 2.
    _judge(simulator, "--prompt-file", str(path))
    assert PromptTemplate.objects.filter(name="lab-judge").count() == 1
    path.write_text(json.dumps({**OWN, "system": "请严格评分。"}, ensure_ascii=False), "utf-8")
    _judge(simulator, "--prompt-file", str(path))
    assert PromptTemplate.objects.filter(name="lab-judge").count() == 2


def test_a_prompt_without_the_criteria_is_refused_naming_them(
    judged_benchmark, simulator, tmp_path
):
    path = tmp_path / "broken.txt"
    path.write_text("请判断：{response}，并看 {answer}", encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        _judge(simulator, "--prompt-file", str(path))
    assert "{answer}" in str(caught.value) and "{criteria}" in str(caught.value)
    assert not JudgeRun.objects.exists()


def test_an_english_prompt_on_a_chinese_benchmark_is_warned_about(
    judged_benchmark, simulator, capsys
):
    _judge(simulator, "--prompt", "judge-en")
    err = capsys.readouterr().err
    assert "judge-en v1 is written in English" in err and "hb are in Chinese" in err
    _judge(simulator, "--prompt", "judge-zh")
    assert "is written in" not in capsys.readouterr().err


def test_the_run_page_warns_too(judged_benchmark, sim_config, coordinator):
    from django.urls import reverse

    from judging.models import PromptTemplate
    from tests.conftest import client_for

    benchmark, systems = judged_benchmark
    config = sim_config(prompt=PromptTemplate.objects.get(name="judge-en", version=1))
    client = client_for(coordinator)
    answer = client.post(
        reverse("judge-run-new"),
        {"benchmark": benchmark.pk, "systems": [systems[0].pk], "config": config.pk},
        follow=True,
    )
    assert "is written in English" in answer.content.decode()


def test_a_prompt_uploaded_on_the_page(db, coordinator, expert):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    from tests.conftest import client_for

    url = reverse("prompt-upload")
    body = json.dumps(OWN, ensure_ascii=False).encode()
    answer = client_for(coordinator).post(
        url, {"name": "lab-judge", "kind": "judge", "file": SimpleUploadedFile("p.json", body)}
    )
    assert answer.status_code == 302
    assert PromptTemplate.objects.get(name="lab-judge").language == "zh-hans"
    bad = client_for(coordinator).post(
        url,
        {
            "name": "lab-judge",
            "kind": "judge",
            "file": SimpleUploadedFile("p.txt", "只有 {response}".encode()),
        },
    )
    assert bad.status_code == 400 and "{criteria}" in bad.content.decode()
    assert PromptTemplate.objects.filter(name="lab-judge").count() == 1
    assert client_for(expert).get(url).status_code == 403
