"""The structured-output probe's answer is shown where a researcher looks: the run page and
the judge configuration page, in the reader's language."""

import pytest
from django.test import Client
from django.urls import reverse

from judging.models import JudgeRun, OutputProbe, Verdict
from judging.services.lane_pool import pool_run
from judging.services.runs import judge_run_start

pytestmark = pytest.mark.django_db(transaction=True)

REFUSED_EN = (
    "This endpoint refused structured output; Concord asks for plain JSON and checks it "
    "against the schema."
)
REFUSED_ZH = "此接口拒绝了结构化输出；Concord 改为请求普通 JSON，并按 JSON Schema 校验回答。"
PROVIDER_SAID = "Invalid parameter: &#x27;response_format&#x27; of type &#x27;json_schema&#x27;"


def _client(user, language: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def test_a_refusal_is_shown_on_the_run_and_configuration_pages(
    judged_benchmark, sim_config, simulator, researcher
):
    simulator.configure(quirks="no_json_schema")
    benchmark, systems = judged_benchmark
    config = sim_config()
    config_url = reverse("judge-config", args=[config.pk])
    page = _client(researcher, "en").get(config_url).content.decode()
    assert "not checked yet: the first run asks the endpoint once" in page

    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=config)
    pool_run(run_id=run.pk, lanes=2)
    run_url = reverse("judge-run", args=[run.pk])
    for url in (run_url, config_url):
        english = _client(researcher, "en").get(url).content.decode()
        assert REFUSED_EN in english and PROVIDER_SAID in english
        chinese = _client(researcher, "zh-hans").get(url).content.decode()
        assert REFUSED_ZH in chinese and "接口的原话" in chinese
        assert REFUSED_EN not in chinese
    assert "普通 JSON" in _client(researcher, "zh-hans").get(run_url).content.decode()


def test_an_accepted_probe_shows_no_notice_and_the_configuration_says_when_it_was_checked(
    judged_benchmark, sim_config, simulator, researcher
):
    benchmark, systems = judged_benchmark
    config = sim_config()
    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=config)
    run_page = _client(researcher, "en").get(reverse("judge-run", args=[run.pk])).content
    assert b"output-notice" not in run_page
    config_page = _client(researcher, "zh-hans").get(reverse("judge-config", args=[config.pk]))
    assert "接口接受（检查于" in config_page.content.decode()


def test_a_probe_that_got_no_answer_is_said_on_the_run_page(
    judged_benchmark, sim_config, simulator, researcher
):
    simulator.configure(rate_500=1.0)
    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=sim_config())
    page = _client(researcher, "zh-hans").get(reverse("judge-run", args=[run.pk]))
    text = page.content.decode()
    assert "Concord 无法确认此接口是否接受结构化输出（接口返回 HTTP 500" in text, text


def test_a_run_started_from_the_page_and_done_by_the_workers_probes_once(
    judged_benchmark, sim_config, simulator, coordinator
):
    """The page hands the run to the Celery workers (in-process under test settings): the
    probe is made before, and the workers' calls ask for plain JSON."""
    simulator.configure(quirks="no_json_schema")
    benchmark, systems = judged_benchmark
    config = sim_config()
    client = _client(coordinator, "en")
    for _ in range(2):
        response = client.post(
            reverse("judge-run-new"),
            {"benchmark": benchmark.pk, "systems": [s.pk for s in systems], "config": config.pk},
        )
        assert response.status_code == 302
    runs = list(JudgeRun.objects.order_by("pk"))
    assert [run.status for run in runs] == ["finished", "finished"]
    assert Verdict.objects.filter(task__run=runs[0]).count() == 8 * 4
    assert OutputProbe.objects.get().finding == "refused"
    # One refusal (the probe) and its answered plain twin; eight calls answered, the second
    # run's all from the cache.
    stats = simulator.stats()
    assert (stats["statuses"]["400"], stats["requests"]) == (1, 9)
    assert runs[1].settings_snapshot["output_mode"] == "plain_json"
    page = client.get(reverse("judge-run", args=[runs[1].pk])).content.decode()
    assert REFUSED_EN in page
