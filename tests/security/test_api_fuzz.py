"""Fuzzing the API from its own OpenAPI schema (/api/schema/) with schemathesis, as each
role: generated requests, valid and invalid, sent through the real Django application and
database. No request may cause a server error, and every documented response must match
the schema it documents (body, content type and headers)."""

import json
from contextlib import contextmanager

import pytest
import schemathesis
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
)

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER
from tests.test_permission_matrix import ANONYMOUS

# Undocumented 4xx answers (401, 403, 404, DRF's 400 on a bad query) are expected of a
# fuzzer's requests, so status-code conformance is not among the checks.
CHECKS = [
    not_a_server_error,
    response_schema_conformance,
    content_type_conformance,
    response_headers_conformance,
]
# Per operation and mode; anonymous requests all stop at authentication, so fewer do.
EXAMPLES_PER_OPERATION = {ANONYMOUS: 2, EXPERT: 4, COORDINATOR: 5, RESEARCHER: 3}
MODES = [schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE]


def load_schema(client: Client) -> schemathesis.BaseSchema:
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = schemathesis.openapi.from_dict(json.loads(response.content))
    # Requests go to the WSGI application in this process, so they see the test database.
    schema.app = WSGIHandler()
    return schema


def real_path_values(world) -> dict[str, str]:
    """Path parameters that name objects of the test data, so requests reach past the
    lookups; otherwise generated values mostly find nothing."""
    values = world["values"]
    return {
        "slug": values["slug"],
        "external_id": values["external_id"],
        "number": values["number"],
        "id": values["config_id"],
        "run_id": values["run_id"],
        "round_id": values["round_id"],
        "assignment_id": values["assignment_id"],
        "item_id": values["item_id"],
        "import_job_id": values["import_job_id"],
        "action": "pause",
    }


def fuzz_operation(operation, headers: dict, real: dict, mode, examples: int) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode), use_real=st.booleans())
    def run(case, use_real):
        if use_real and case.path_parameters:
            case.path_parameters = {
                name: real.get(name, value) for name, value in case.path_parameters.items()
            }
        response = case.call(headers=headers)
        case.validate_response(response, checks=CHECKS, headers=headers)

    run()


@contextmanager
def connection_kept():
    """The WSGI handler closes database connections around each request, which would close
    the test's transaction; Django's test client detaches the same receivers (and attaches
    them again after each of its requests, so this wraps only the fuzzing)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.mark.parametrize("persona", [ANONYMOUS, EXPERT, COORDINATOR, RESEARCHER])
def test_the_api_survives_fuzzing_as_each_role(world, persona):
    reader = Client()
    reader.force_login(world["users"][COORDINATOR])
    schema = load_schema(reader)
    headers = {}
    if persona != ANONYMOUS:
        token = Token.objects.create(user=world["users"][persona])
        headers = {"Authorization": f"Token {token.key}"}
    real = real_path_values(world)

    failures, operations = [], 0
    with connection_kept():
        for result in schema.get_all_operations():
            operation = result.ok()
            operations += 1
            for mode in MODES:
                try:
                    fuzz_operation(operation, headers, real, mode, EXAMPLES_PER_OPERATION[persona])
                # One operation's failure must not hide the rest; schemathesis reports its
                # findings as an exception group.
                except Unsatisfiable:
                    # Nothing to make invalid (no parameters, no body): no negative cases.
                    assert mode == schemathesis.GenerationMode.NEGATIVE, operation.label
                except (Exception, BaseExceptionGroup) as error:
                    summary = "\n".join(str(error).splitlines()[:40])
                    failures.append(f"{operation.label} [{mode.value}]: {summary}")
    assert operations >= 40
    assert not failures, f"{len(failures)} failing:\n" + "\n\n".join(failures)
