import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Case
from tests.conftest import jsonl_bytes, question, table_counts
from tests.factories import CaseFactory, ResponseFactory, RubricVersionFactory, SystemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def data():
    case = CaseFactory(benchmark__slug="hb", external_id="c1")
    RubricVersionFactory(case=case, criteria=4)
    RubricVersionFactory(case=case, number=2, criteria=6)
    ResponseFactory(case=case, system=SystemFactory(name="SecretModel-A"))
    return case


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


READ_URLS = [
    ("api-benchmark-list", []),
    ("api-benchmark-detail", ["hb"]),
    ("api-case-list", ["hb"]),
    ("api-case-detail", ["hb", "c1"]),
    ("api-rubric-version-list", ["hb", "c1"]),
    ("api-rubric-version-detail", ["hb", "c1", 1]),
    ("api-response-list", ["hb"]),
    ("api-system-list", []),
]
IMPORT_URLS = [("api-benchmark-import", ["hb"]), ("api-responses-import", ["hb"])]


def test_anonymous_requests_get_401(data):
    for name, args in READ_URLS + IMPORT_URLS:
        client = api()
        url = reverse(name, args=args)
        response = client.post(url) if name.endswith("import") else client.get(url)
        assert response.status_code == 401, name


def test_experts_are_refused_everything_that_could_reveal_systems(data, expert, outsider):
    for user in (expert, outsider):
        for name, args in READ_URLS:
            response = api(user).get(reverse(name, args=args))
            assert response.status_code == 403, (user, name)
            assert b"SecretModel" not in response.content


def test_researchers_read_everything_and_import_nothing(data, researcher):
    for name, args in READ_URLS:
        assert api(researcher).get(reverse(name, args=args)).status_code == 200, name
    for name, args in IMPORT_URLS:
        assert api(researcher).post(reverse(name, args=args), {}).status_code == 403, name


def test_token_authentication_works(data, coordinator):
    token = Token.objects.create(user=coordinator)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.get(reverse("api-benchmark-list"))
    assert response.status_code == 200
    assert response.json()[0]["slug"] == "hb"


def test_benchmark_and_case_payloads(data, researcher):
    client = api(researcher)
    bench = client.get(reverse("api-benchmark-detail", args=["hb"])).json()
    assert (bench["case_count"], bench["criteria_count"], bench["response_count"]) == (1, 6, 1)
    case = client.get(reverse("api-case-detail", args=["hb", "c1"])).json()
    assert case["question_id"] == "c1" and case["criteria_count"] == 6
    assert case["dialogue"][0]["role"] == "A"
    versions = client.get(reverse("api-rubric-version-list", args=["hb", "c1"])).json()
    assert [v["number"] for v in versions] == [1, 2]
    v1 = client.get(reverse("api-rubric-version-detail", args=["hb", "c1", 1])).json()
    assert len(v1["criteria"]) == 4
    assert v1["criteria"][-1].pop("key")
    assert v1["criteria"][-1] == {
        "position": 4,
        "ability": "其他",
        "category": "catastrophic",
        "weight": None,
        "text": "没有回应用户，而是以用户的身份说话",
        "is_catastrophic": True,
    }
    responses = client.get(reverse("api-response-list", args=["hb"]), {"system": "SecretModel-A"})
    assert responses.json()["results"][0]["system"] == "SecretModel-A"
    missing = client.get(reverse("api-benchmark-detail", args=["nope"]))
    assert missing.status_code == 404


def test_import_endpoints(coordinator):
    client = api(coordinator)
    upload = SimpleUploadedFile("q.jsonl", jsonl_bytes([question("a1"), question("a2")]))
    response = client.post(
        reverse("api-benchmark-import", args=["new"]), {"file": upload}, format="multipart"
    )
    assert response.status_code == 200, response.content
    assert response.json()["rubric_versions_created"] == 2
    answers = SimpleUploadedFile(
        "a.jsonl", jsonl_bytes([{"question_id": "a1", "response": "我明白"}])
    )
    response = client.post(
        reverse("api-responses-import", args=["new"]),
        {"file": answers, "system": "API model"},
        format="multipart",
    )
    assert response.status_code == 200, response.content
    assert response.json()["responses_created"] == 1


def test_import_endpoint_reports_errors_and_writes_nothing(coordinator):
    before = table_counts()
    upload = SimpleUploadedFile("q.jsonl", jsonl_bytes([question("a1"), b"{"]))
    response = api(coordinator).post(
        reverse("api-benchmark-import", args=["new"]), {"file": upload}, format="multipart"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["total"] == 1
    assert body["errors"][0]["line"] == 2 and "invalid JSON" in body["errors"][0]["message"]
    assert table_counts() == before
    assert not Case.objects.exists()


def test_schema_and_docs_are_served(coordinator):
    client = api(coordinator)
    schema = client.get(reverse("api-schema"), {"format": "json"})
    assert schema.status_code == 200
    paths = json.loads(schema.content)["paths"]
    assert "/api/benchmarks/{slug}/import/" in paths
    assert client.get(reverse("api-docs")).status_code == 200
