import logging

import pytest
from django.test import Client

from config.logging import RequestIdFilter

pytestmark = pytest.mark.django_db


class Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []
        self.addFilter(RequestIdFilter())

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_the_not_found_line_django_writes_after_the_response_keeps_the_request_id():
    handler = Keep()
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    try:
        response = Client().get("/no-such-page/", headers={"X-Request-ID": "req-404"})
    finally:
        logger.removeHandler(handler)
    assert response.status_code == 404
    assert [r.request_id for r in handler.records] == ["req-404"]
