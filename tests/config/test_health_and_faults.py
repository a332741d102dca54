import json
import logging

import pytest
from django.db.utils import OperationalError
from django.test import Client
from django.urls import reverse

from config.logging import JsonFormatter, RequestIdFilter

pytestmark = pytest.mark.django_db


def test_healthz_reports_both_services():
    response = Client().get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "down": [], "database": "ok", "broker": "ok"}


def test_healthz_names_an_unreachable_broker(settings):
    from tests.conftest import celery_overrides

    with celery_overrides(broker_url="redis://127.0.0.1:1/0"):  # nothing listens on port 1
        response = Client().get(reverse("healthz"))
    assert response.status_code == 503
    body = response.json()
    assert body["down"] == ["broker"] and body["database"] == "ok"


def test_healthz_names_an_unreachable_database(monkeypatch):
    from config import health

    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(health.connection, "cursor", refuse)
    response = Client().get(reverse("healthz"))
    assert response.status_code == 503 and response.json()["down"] == ["database"]


def test_a_page_says_the_database_is_down_with_503(monkeypatch, coordinator):
    from annotation.views import benchmarks

    def refuse(**kwargs):
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(benchmarks, "benchmark_list_with_counts", refuse)
    client = Client()
    client.force_login(coordinator)
    response = client.get(reverse("benchmark-list"))
    assert response.status_code == 503
    assert "Concord cannot reach its database" in response.content.decode()


def test_responses_carry_a_request_id_and_json_logs_include_it():
    response = Client().get(reverse("login"), headers={"X-Request-ID": "abc123"})
    assert response["X-Request-ID"] == "abc123"
    assert len(Client().get(reverse("login"))["X-Request-ID"]) == 32
    record = logging.LogRecord("concord", logging.INFO, __file__, 1, "导入完成 %s", ("ok",), None)
    RequestIdFilter().filter(record)
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "导入完成 ok" and line["level"] == "INFO" and "request_id" in line
