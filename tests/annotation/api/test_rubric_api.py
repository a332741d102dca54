import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Benchmark, RubricVersion
from annotation.services.benchmark_import import benchmark_import
from core.models import AuditEvent
from tests.conftest import jsonl_bytes, lines, question, table_counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def case():
    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="hb")


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


VERSIONS = reverse("api-rubric-version-list", args=["hb", "c1"])


def payload(client, parent=1, **change) -> dict:
    current = client.get(reverse("api-rubric-version-detail", args=["hb", "c1", parent])).json()
    criteria = [
        {"ability": c["ability"], "weight": c["weight"], "text": c["text"]}
        for c in current["criteria"]
    ]
    criteria[0].update(change)
    return {"parent": parent, "note": "via API", "criteria": criteria}


def test_create_list_get_and_diff(case, coordinator):
    client = api(coordinator)
    response = client.post(VERSIONS, payload(client, text="新的第一条"), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["number"] == 2 and response.json()["criteria"][0]["text"] == "新的第一条"
    assert [v["number"] for v in client.get(VERSIONS).json()] == [1, 2]
    diff = client.get(
        reverse("api-rubric-version-diff", args=["hb", "c1"]), {"from": 1, "to": 2}
    ).json()
    # Criteria sent without keys are matched to the parent's by text.
    changes = [d["change"] for d in diff]
    assert changes == ["removed", "added", "unchanged", "unchanged", "unchanged"]
    bad = client.get(reverse("api-rubric-version-diff", args=["hb", "c1"]), {"from": "x", "to": 2})
    assert bad.status_code == 400


def test_create_validates_with_messages_by_position(case, coordinator):
    client = api(coordinator)
    body = payload(client, text="")
    body["note"] = ""
    before = table_counts()
    response = client.post(VERSIONS, body, format="json")
    assert response.status_code == 400
    assert response.json()["criteria"] == {"1": ["Write the criterion text."]}
    assert response.json()["rubric"][0].startswith("Write a short change note")
    out_of_range = payload(client, weight=11)
    assert client.post(VERSIONS, out_of_range, format="json").status_code == 400
    assert table_counts() == before


def test_create_refuses_a_stale_parent_with_the_diff(case, coordinator):
    client = api(coordinator)
    first = payload(client, weight=5)
    assert client.post(VERSIONS, first, format="json").status_code == 201
    stale = payload(client, parent=1, text="过时的编辑")
    response = client.post(VERSIONS, stale, format="json")
    assert response.status_code == 409
    assert response.json()["latest"] == 2
    assert any(d["change"] != "unchanged" for d in response.json()["changes"])
    assert RubricVersion.objects.count() == 2


def test_experts_and_researchers_cannot_publish(case, expert, researcher):
    for user in (expert, researcher):
        response = api(user).post(
            VERSIONS, {"parent": 1, "note": "x", "criteria": []}, format="json"
        )
        assert response.status_code == 403
    assert api().post(VERSIONS, {}, format="json").status_code == 401


def test_export_then_import_into_an_empty_database_then_export_is_identical(case, coordinator):
    client = api(coordinator)
    client.post(VERSIONS, payload(client, text="第二版的第一条", weight=6), format="json")
    extra = question("c2", difficulty="hard", primary_scene="")
    extra["rubric"].append({"dimension": "其他", "score": -4, "content": "替用户做决定"})
    benchmark_import(chunks=lines(jsonl_bytes([extra])), benchmark_slug="hb")
    first = b"".join(client.get(reverse("api-rubric-export", args=["hb"])).streaming_content)
    assert first.decode().count("\n") == 2 and "第二版的第一条" in first.decode()

    # Empty the database of everything but the migrated taxonomy and the user.
    AuditEvent.objects.all().delete()
    Benchmark.objects.all().delete()
    assert table_counts()["annotation.Criterion"] == 0
    importer = coordinator
    upload = SimpleUploadedFile("rubrics.jsonl", first)
    response = api(importer).post(
        reverse("api-benchmark-import", args=["hb"]), {"file": upload}, format="multipart"
    )
    assert response.status_code == 200, response.content
    second = b"".join(
        api(importer).get(reverse("api-rubric-export", args=["hb"])).streaming_content
    )
    assert second == first
