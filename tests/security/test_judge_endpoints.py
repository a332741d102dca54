"""A judge's API key comes only from variables the operator allows, and requests go only to
endpoints the operator allows: a coordinator cannot have the workers send Concord's own
secrets (the database URL, the secret key) to a server of their choosing."""

import http.server
import threading

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from judging.endpoints import EndpointRefused, base_url_check, key_variable_check
from judging.models import JudgeConfig, JudgeRun, JudgeTask, PromptTemplate
from judging.services.lanes import run_here
from judging.services.runs import RunNotStartable, judge_run_start
from tests.conftest import client_for
from tests.judging.conftest import judged_benchmark, sim_config, simulator  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "postgres://concord:very-secret-password@10.0.0.1:5432/concord"


class Catcher:
    """A real HTTP server on loopback that records every request's headers."""

    def __init__(self) -> None:
        self.headers: list[dict] = []
        catcher = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                catcher.headers.append(dict(self.headers))
                self.send_response(500)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def stop(self) -> None:
        self.server.shutdown()


@pytest.fixture
def catcher():
    server = Catcher()
    yield server
    server.stop()


def form(base_url: str, key: str) -> dict:
    return {
        "name": "mine",
        "base_url": base_url,
        "model": "m",
        "api_key_env": key,
        "prompt": PromptTemplate.objects.get(name="judge-zh", version=1).pk,
        "temperature": 0,
        "max_output_tokens": 100,
        "timeout_seconds": 5,
        "max_concurrency": 2,
        "requests_per_minute": 0,
        "max_attempts": 1,
        "backoff_seconds": 0,
        "price_prompt_per_1k": 0,
        "price_completion_per_1k": 0,
    }


@pytest.mark.parametrize(
    "variable", ["DATABASE_URL", "SECRET_KEY", "DB_PASSWORD", "CELERY_BROKER_URL"]
)
def test_the_apps_own_settings_cannot_be_named_as_a_key(
    coordinator, catcher, variable, monkeypatch
):
    monkeypatch.setenv(variable, SECRET)
    page = client_for(coordinator).post(reverse("judge-config-new"), form(catcher.url, variable))
    assert page.status_code == 400 and "never sent to a judge" in page.content.decode()
    api = APIClient()
    api.force_authenticate(coordinator)
    response = api.post(
        reverse("api-judge-config-list"),
        {"name": "mine", "model": "m", "base_url": catcher.url, "api_key_env": variable},
        format="json",
    )
    assert response.status_code == 400 and "never sent to a judge" in str(response.json())
    assert not JudgeConfig.objects.exists()
    assert catcher.headers == []


@pytest.mark.parametrize(
    "pasted",
    [
        "0123456789abcdef0123456789abcdef",
        "AIzaSyD-this-looks-like-a-google-key-123",
        "sk-proj-abcdefghijklmnop",
        "ABCDEF0123456789ABCDEF0123456789",
    ],
)
def test_a_pasted_key_is_refused_and_never_shown_back(coordinator, pasted):
    page = client_for(coordinator).post(
        reverse("judge-config-new"), form("http://127.0.0.1:9/v1", pasted)
    )
    body = page.content.decode()
    assert page.status_code == 400 and "This looks like an API key" in body
    assert pasted not in body and not JudgeConfig.objects.exists()


def test_only_the_operators_variables_hold_keys(settings):
    for allowed in ("OPENAI_API_KEY", "CONCORD_JUDGE_KEY_LAB", "CONCORD_JUDGE_KEY_2"):
        key_variable_check(allowed)
    for refused in ("MY_KEY", "CONCORD_JUDGE_KEY", "openai_api_key", "HOME", "PATH"):
        with pytest.raises(EndpointRefused):
            key_variable_check(refused)
    settings.JUDGE_KEY_VARIABLES = r".*"
    key_variable_check("LAB_KEY")
    for own in ("SECRET_KEY", "DATABASE_URL", "DEBUG", "CACHE_URL"):
        with pytest.raises(EndpointRefused, match="never sent to a judge"):
            key_variable_check(own)


def test_a_refused_variable_stored_before_the_rules_is_never_read_or_sent(
    judged_benchmark,  # noqa: F811
    sim_config,  # noqa: F811
    catcher,
    monkeypatch,
):
    """A row written before these rules (or by hand) cannot leak either: the run is refused,
    and a lane holding such settings fails the task without calling anyone."""
    monkeypatch.setenv("DATABASE_URL", SECRET)
    benchmark, systems = judged_benchmark
    config = sim_config(base_url=catcher.url, max_attempts=1)
    JudgeConfig.objects.filter(pk=config.pk).update(api_key_env="DATABASE_URL")
    with pytest.raises(RunNotStartable, match="never sent to a judge"):
        judge_run_start(benchmark=benchmark, systems=systems, config=JudgeConfig.objects.get())
    JudgeConfig.objects.filter(pk=config.pk).update(api_key_env="")
    run = judge_run_start(benchmark=benchmark, systems=systems, config=JudgeConfig.objects.get())
    # Started with no key variable: the structured-output probe went out with no key.
    (probe_headers,) = catcher.headers
    assert probe_headers["authorization"] == "Bearer no-key-needed"
    JudgeRun.objects.filter(pk=run.pk).update(
        settings_snapshot={**run.settings_snapshot, "api_key_env": "DATABASE_URL"}
    )
    run_here(run_id=run.pk, lanes=2)
    assert catcher.headers == [probe_headers]
    failed = JudgeTask.objects.filter(run=run, status=JudgeTask.Status.FAILED)
    assert failed.count() == 8 and "never sent to a judge" in failed.first().last_error


def test_production_sends_only_to_listed_public_hosts(settings):
    settings.JUDGE_BASE_URLS_REQUIRED = True
    settings.JUDGE_ALLOW_PRIVATE_URLS = False
    settings.JUDGE_BASE_URLS = []
    with pytest.raises(EndpointRefused, match="CONCORD_JUDGE_BASE_URLS"):
        base_url_check("https://api.openai.com/v1")
    settings.JUDGE_BASE_URLS = ["api.openai.com", "*.example.org", "127.0.0.1"]
    public = lambda host: ["104.18.6.192"]  # noqa: E731 - a resolver that needs no network
    base_url_check("https://api.openai.com/v1", resolve=public)
    base_url_check("https://llm.example.org/v1", resolve=public)
    with pytest.raises(EndpointRefused, match=r"may not be sent to evil\.example\.com"):
        base_url_check("https://evil.example.com/v1", resolve=public)
    with pytest.raises(EndpointRefused, match="loopback, private or link-local"):
        base_url_check("http://127.0.0.1:8765/v1")
    # A listed name that resolves to a private address (DNS pointed inwards) is refused too.
    with pytest.raises(EndpointRefused, match="loopback, private or link-local"):
        base_url_check("https://llm.example.org/v1", resolve=lambda host: ["10.0.0.5"])
    settings.JUDGE_BASE_URLS = ["169.254.169.254"]
    with pytest.raises(EndpointRefused, match="loopback, private or link-local"):
        base_url_check("http://169.254.169.254/latest")
    with pytest.raises(EndpointRefused, match="user name or password"):
        base_url_check("https://me:pw@api.openai.com/v1")
    with pytest.raises(EndpointRefused, match="http or https"):
        base_url_check("file:///etc/passwd")
    settings.JUDGE_ALLOW_PRIVATE_URLS = True
    settings.JUDGE_BASE_URLS = ["127.0.0.1"]
    base_url_check("http://127.0.0.1:8765/v1")  # an operator's own model server
