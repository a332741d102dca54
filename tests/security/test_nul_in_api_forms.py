"""Attacker's finding 23: a NUL in a form-encoded or multipart API body was a 500 on
PostgreSQL (a DataError from the lookup), while the same value as JSON was a 400. Every
parser of the API refuses it, naming the field."""

import pytest
from django.test import Client
from django.test.client import encode_multipart
from django.urls import reverse
from rest_framework.authtoken.models import Token

from accounts.roles import COORDINATOR
from annotation.models import Assignment
from tests.conftest import table_counts

BOUNDARY = "BoUnDaRyNuL"


def _api(world) -> Client:
    token = Token.objects.create(user=world["users"][COORDINATOR])
    return Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {token.key}")


def _send(client: Client, url: str, data: dict, encoding: str):
    if encoding == "form":
        from urllib.parse import urlencode

        return client.post(
            url, urlencode(data, doseq=True), content_type="application/x-www-form-urlencoded"
        )
    body = encode_multipart(BOUNDARY, data)
    return client.post(url, body, content_type=f"multipart/form-data; boundary={BOUNDARY}")


@pytest.mark.parametrize("encoding", ["form", "multipart"])
@pytest.mark.parametrize(
    "target",
    ["rounds", "judge-runs", "reassign"],
)
def test_a_nul_in_a_form_or_multipart_api_body_is_a_400_naming_the_field(world, encoding, target):
    client = _api(world)
    values = world["values"]
    if target == "rounds":
        url = reverse("api-review-manage-rounds")
        data = {"benchmark": "hb\x00", "name": "r", "systems": "Alpha", "experts": "m-expert"}
        field = "benchmark"
    elif target == "judge-runs":
        url = reverse("api-judge-run-list")
        data = {"benchmark": "hb", "config": "1", "systems": "Al\x00pha"}
        field = "systems"
    else:
        assignment = Assignment.objects.filter(started__isnull=True).first()
        url = reverse("api-review-manage-reassign", args=[assignment.pk])
        data = {"expert": "m-oth\x00er"}
        field = "expert"
    assert values  # the world is built
    before = table_counts()
    response = _send(client, url, data, encoding)
    assert response.status_code == 400, (response.status_code, response.content[:300])
    text = response.content.decode()
    assert "NUL" in text and field in text, text
    assert table_counts() == before
