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
from hypothesis import given
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
from tests.security.hostile import KINDS, hostile, raw_json_with, repeatable, url_encoded
from tests.test_permission_matrix import ANONYMOUS

# PostgreSQL refuses values SQLite stores (a NUL byte in text), so that is where hostile
# input could turn into a server error: the fuzzers run in the PostgreSQL stage of CI.
pytestmark = pytest.mark.fuzz

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
    @repeatable(examples)
    @given(case=operation.as_strategy(generation_mode=mode), use_real=st.booleans())
    def run(case, use_real):
        if use_real and case.path_parameters:
            case.path_parameters = {
                name: real.get(name, value) for name, value in case.path_parameters.items()
            }
        response = case.call(headers=headers)
        case.validate_response(response, checks=CHECKS, headers=headers)

    run()


def nothing_to_negate(operation) -> bool:
    """No body, no query, and only path parameters that any string fits: schemathesis can
    make no request invalid, and would spend a thousand draws finding that out."""
    raw = operation.definition.raw
    if "requestBody" in raw:
        return False
    for parameter in raw.get("parameters", []):
        schema = _resolve(parameter.get("schema", {}), operation.schema.raw_schema)
        if parameter["in"] != "path" or schema.get("type") != "string":
            return False
        if set(schema) - {"type", "description", "title"}:
            return False
    return True


def modes_of(operation) -> list:
    if nothing_to_negate(operation):
        return [schemathesis.GenerationMode.POSITIVE]
    return MODES


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
            for mode in modes_of(operation):
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


def test_an_operation_left_out_of_negative_fuzzing_has_nothing_to_negate(world):
    """What `nothing_to_negate` leaves out, schemathesis cannot fuzz negatively either: an
    operation without parameters and one with only a free string in its path."""
    reader = Client()
    reader.force_login(world["users"][COORDINATOR])
    operations = {r.ok().label: r.ok() for r in load_schema(reader).get_all_operations()}
    left_out = [label for label, operation in operations.items() if nothing_to_negate(operation)]
    assert "GET /api/systems/" in left_out and "GET /api/benchmarks/{slug}/" in left_out
    assert "GET /api/benchmarks/{slug}/cases/" not in left_out  # it has a query
    assert "POST /api/judge-configs/" not in left_out  # it has a body
    with connection_kept():
        for label in ("GET /api/systems/", "GET /api/benchmarks/{slug}/"):
            with pytest.raises(Unsatisfiable):
                fuzz_operation(operations[label], {}, {}, MODES[1], examples=2)


# --- hostile values in every parameter ----------------------------------------------------

BODY_TYPES = ("application/json", "multipart/form-data")


def _resolve(schema: dict, spec: dict) -> dict:
    while "$ref" in schema:
        node = spec
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def hostile_targets(operation) -> tuple[list[tuple[str, str]], str | None]:
    """Every parameter of the operation, ("query" | "path" | "body", name), and the body's
    media type; ("body", "") stands for the whole body."""
    raw = operation.definition.raw
    targets = [(p["in"], p["name"]) for p in raw.get("parameters", []) if p["in"] != "header"]
    content = raw.get("requestBody", {}).get("content", {})
    media = next((m for m in BODY_TYPES if m in content), None)
    if media:
        schema = _resolve(content[media]["schema"], operation.schema.raw_schema)
        targets += [("body", name) for name in schema.get("properties", {})]
        if media == "application/json":
            targets.append(("body", ""))
    return targets, media


def _multipart(fields: dict) -> tuple[bytes, str]:
    boundary = "hostile-boundary"
    out = []
    for name, value in fields.items():
        if isinstance(value, bytes):
            head = f'Content-Disposition: form-data; name="{name}"; filename="f.jsonl"'
            data = value
        else:
            head = f'Content-Disposition: form-data; name="{name}"'
            data = str(value).encode("utf-8", "surrogatepass")
        out.append(f"--{boundary}\r\n{head}\r\n\r\n".encode() + data + b"\r\n")
    out.append(f"--{boundary}--\r\n".encode())
    return b"".join(out), f"multipart/form-data; boundary={boundary}"


def hostile_request(case, media, target, kind: str, value: str):
    """(method, url, body, content type) of `case` with `value` put where `target` says."""
    where, name = target
    path_values = {k: str(v) for k, v in (case.path_parameters or {}).items()}
    encoded = {k: url_encoded(v) for k, v in path_values.items()}
    if where == "path":
        encoded[name] = url_encoded(value)
    path = case.operation.path
    for key, part in encoded.items():
        path = path.replace("{" + key + "}", part)
    query = {k: v for k, v in (case.query or {}).items() if v is not None}
    if where == "query":
        query[name] = value
    pairs = [
        f"{url_encoded(str(k))}={url_encoded(str(v))}"
        for k, values in query.items()
        for v in (values if isinstance(values, list) else [values])
    ]
    url = path + ("?" + "&".join(pairs) if pairs else "")
    body, content_type = b"", None
    if media == "application/json":
        base = case.body if isinstance(case.body, dict) else {}
        if where == "body" and not name:
            body = value.encode("utf-8", "surrogatepass")
        elif where == "body":
            body = raw_json_with(base, name, value, kind)
        else:
            body = json.dumps(base).encode()
        content_type = "application/json"
    elif media:
        fields = dict(case.body) if isinstance(case.body, dict) else {}
        if where == "body":
            fields[name] = value.encode("utf-8", "surrogatepass") if name == "file" else value
        body, content_type = _multipart(fields)
    return case.method, url, body, content_type


def valid_cases(operation, real: dict, count: int = 2) -> list:
    """`count` valid requests of the operation, with the test data's path values: drawn once
    and shared by all its targets and kinds (schemathesis takes longer to draw a request
    than the application takes to answer it)."""
    found = []

    @repeatable(count)
    @given(case=operation.as_strategy(generation_mode=schemathesis.GenerationMode.POSITIVE))
    def draw(case):
        if case.path_parameters:
            case.path_parameters = {k: real.get(k, v) for k, v in case.path_parameters.items()}
        found.append(case)

    draw()
    return found


def hostile_fuzz(operation, cases: list, media, client: Client, target, kind, failures):
    @repeatable(2)
    @given(which=st.integers(0, len(cases) - 1), value=hostile(kind))
    def run(which, value):
        method, url, body, content_type = hostile_request(cases[which], media, target, kind, value)
        extra = {"content_type": content_type} if content_type else {}
        response = client.generic(method, url, body, **extra)
        if response.status_code >= 500:
            error = getattr(response, "exc_info", None)
            failures.append(
                f"{operation.label} {target} {kind}: {response.status_code} "
                f"{repr(error[1])[:300] if error else response.content[:300]!r}"
            )

    run()


@pytest.mark.parametrize("persona", [EXPERT, COORDINATOR])
def test_hostile_values_in_every_api_parameter_are_refused_without_a_server_error(world, persona):
    reader = Client()
    reader.force_login(world["users"][COORDINATOR])
    schema = load_schema(reader)
    token = Token.objects.create(user=world["users"][persona])
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {token.key}")
    real = real_path_values(world)
    failures: list[str] = []
    checked = 0
    with connection_kept():
        for result in schema.get_all_operations():
            operation = result.ok()
            targets, media = hostile_targets(operation)
            cases = valid_cases(operation, real) if targets else []
            for target in targets:
                for kind in KINDS:
                    hostile_fuzz(operation, cases, media, client, target, kind, failures)
                    checked += 1
    assert checked >= 400
    assert not failures, f"{len(failures)} server errors:\n" + "\n".join(failures)
