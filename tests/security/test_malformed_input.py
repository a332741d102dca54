"""Malformed input is a 400 naming what is wrong, never a 500: JSON nested 100,000 deep, a
lone surrogate escape, NUL characters in query strings, forms and JSON bodies, over-long
import fields, impossible dates and ids that are not numbers. Each case is sent the way a
user or a client would send it, through the whole stack (middleware, view, database)."""

import json

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from accounts.roles import COORDINATOR, EXPERT
from annotation.models import Assignment, Case
from tests.conftest import jsonl_bytes, question, table_counts

DEEP = "[" * 100_000
NUL = "关键\x00词"


def page_client(world, persona: str) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(world["users"][persona])
    return client


def api_client(world, persona: str) -> Client:
    token = Token.objects.create(user=world["users"][persona])
    return Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {token.key}")


def assert_refused(response, *words: str) -> str:
    """A 400 whose message names each of `words`; the message is returned."""
    assert response.status_code == 400, (response.status_code, response.content[:500])
    if response["Content-Type"].startswith("application/json"):
        text = json.dumps(response.json(), ensure_ascii=False)
    else:
        text = response.content.decode()
    for word in words:
        assert word in text, (word, text[:2000])
    return text


def criterion_ids(world) -> list[int]:
    assignment = Assignment.objects.select_related("item__rubric_version").get(
        pk=world["values"]["assignment_id"]
    )
    return list(assignment.item.rubric_version.criteria.values_list("pk", flat=True))


# --- JSON bodies ------------------------------------------------------------------------


def test_json_nested_100000_deep_is_a_400(world):
    coordinator = api_client(world, COORDINATOR)
    expert = api_client(world, EXPERT)
    autosave = reverse("api-review-autosave", args=[world["values"]["assignment_id"]])
    for client, url in (
        (coordinator, "/api/benchmarks/hb/export-jobs/"),
        (coordinator, "/api/judge-configs/"),
        (expert, autosave),
    ):
        response = client.post(url, DEEP, content_type="application/json")
        assert_refused(response, "nested")


def test_a_lone_surrogate_in_a_json_body_is_a_400(world):
    expert = api_client(world, EXPERT)
    first = criterion_ids(world)[0]
    body = '{"votes": [{"criterion": ' + str(first) + ', "hit": true, "note": "\\ud800"}]}'
    url = reverse("api-review-autosave", args=[world["values"]["assignment_id"]])
    text = assert_refused(expert.post(url, body, content_type="application/json"), "votes[0].note")
    assert "surrogate" in text


def test_a_nul_character_in_an_api_json_body_is_a_400(world):
    expert = api_client(world, EXPERT)
    first = criterion_ids(world)[0]
    assignment = world["values"]["assignment_id"]
    autosave = {"votes": [{"criterion": first, "hit": True, "note": NUL}]}
    response = expert.post(
        reverse("api-review-autosave", args=[assignment]),
        json.dumps(autosave),
        content_type="application/json",
    )
    assert_refused(response, "votes[0].note", "NUL")
    flag = {"reason": "other", "note": NUL}
    response = expert.post(
        reverse("api-review-flag", args=[assignment]),
        json.dumps(flag),
        content_type="application/json",
    )
    assert_refused(response, "note", "NUL")


# --- forms and query strings ------------------------------------------------------------


def test_a_nul_character_in_a_page_form_is_a_400(world):
    expert = page_client(world, EXPERT)
    assignment = world["values"]["assignment_id"]
    first = criterion_ids(world)[0]
    response = expert.post(
        reverse("review-autosave", args=[assignment]),
        {f"hit-{first}": "1", f"note-{first}": NUL, "active_seconds": "3"},
    )
    assert_refused(response, f"note-{first}", "NUL")
    response = expert.post(
        reverse("review-flag", args=[assignment]), {"reason": "other", "note": NUL}
    )
    assert_refused(response, "note", "NUL")


@pytest.mark.parametrize(
    "url, parameter",
    [
        ("/benchmarks/hb/", "q"),
        ("/benchmarks/hb/rubrics/", "q"),
        ("/audit/", "benchmark"),
        ("/api/benchmarks/hb/responses/", "system"),
        ("/api/benchmarks/hb/responses/", "question_id"),
    ],
)
def test_a_nul_character_in_a_query_parameter_is_a_400(world, url, parameter):
    client = page_client(world, COORDINATOR)
    assert_refused(client.get(url, {parameter: NUL}), parameter, "NUL")


@pytest.mark.parametrize(
    "url", ["/benchmarks/hb/cases/a%00b/", "/api/benchmarks/hb/cases/a%00b/rubric-versions/"]
)
def test_a_nul_character_in_the_address_is_a_400(world, url):
    client = page_client(world, COORDINATOR)
    assert_refused(client.get(url), "external_id", "NUL")


def test_an_impossible_since_date_is_a_400_naming_it(world):
    client = page_client(world, COORDINATOR)
    response = client.get("/benchmarks/hb/rubrics/", {"since": "2026-13-45"})
    assert_refused(response, "2026-13-45")


def test_a_gate_post_with_a_round_that_is_not_a_number_says_so(world):
    # The gate's page sends its refusals back to the agreement page as a message.
    client = page_client(world, COORDINATOR)
    url = reverse("gate-record", args=["hb"])
    response = client.post(url, {"round": "abc", "run": world["run"].pk}, follow=True)
    assert response.status_code == 200
    assert "No review round abc in this benchmark." in response.content.decode()
    response = client.post(url, {"round": world["round"].pk, "run": "1x"}, follow=True)
    assert response.status_code == 200
    assert "A judge run is given by its id" in response.content.decode()


# --- the database is down ------------------------------------------------------------


def test_the_api_says_the_database_is_down_in_json(world, monkeypatch):
    from django.db.utils import OperationalError

    from annotation.api import views

    def refuse(**kwargs):
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(views, "benchmark_list_with_counts", refuse)
    response = api_client(world, COORDINATOR).get("/api/benchmarks/")
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert "database" in response.json()["detail"]


# --- import files -----------------------------------------------------------------------


def upload(client: Client, rows: list, *, htmx: bool = True):
    from django.core.files.uploadedfile import SimpleUploadedFile

    data = {"benchmark": "hb2", "file": SimpleUploadedFile("q.jsonl", jsonl_bytes(rows))}
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(reverse("import-benchmark"), data, headers=headers)


def test_an_import_file_nested_100000_deep_names_the_line(world):
    client = page_client(world, COORDINATOR)
    before = table_counts()
    response = upload(client, [question("ok1"), DEEP])
    assert_refused(response, "line 2", "nested")
    assert table_counts() == before


def test_a_number_too_long_to_read_in_an_import_file_names_the_line(world):
    client = page_client(world, COORDINATOR)
    before = table_counts()
    row = json.dumps(question("ok1")).replace('"score": 3', '"score": ' + "9" * 5000)
    response = upload(client, [question("ok0"), row])
    assert_refused(response, "line 2", "digits")
    assert table_counts() == before


def test_a_lone_surrogate_in_an_import_file_names_line_and_field(world):
    client = page_client(world, COORDINATOR)
    before = table_counts()
    row = json.dumps(question("ok1"), ensure_ascii=False).replace("指出", "\\ud800指出")
    response = upload(client, [row])
    assert_refused(response, "line 1", "rubric[0].content", "surrogate")
    assert table_counts() == before


@pytest.mark.parametrize(
    "field, row",
    [
        ("question_id", question("q" * 5000)),
        (
            "rubric[1].dimension",
            question(
                "ok1",
                rubric=[
                    {"dimension": "情绪感知", "score": 3, "content": "a"},
                    {"dimension": "维" * 5000, "score": 3, "content": "b"},
                ],
            ),
        ),
        ("primary_scene", question("ok1", primary_scene="场" * 5000)),
        ("secondary_scene", question("ok1", secondary_scene="景" * 5000)),
    ],
)
def test_an_over_long_import_field_names_line_and_field(world, field, row):
    client = page_client(world, COORDINATOR)
    before = table_counts()
    response = upload(client, [question("ok0"), row])
    assert_refused(response, "line 2", field)
    assert table_counts() == before


def test_an_over_long_question_id_in_an_answers_file_is_refused(world):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = page_client(world, COORDINATOR)
    before = table_counts()
    body = jsonl_bytes([{"question_id": "q" * 5000, "response": "回答"}])
    response = client.post(
        reverse("import-responses"),
        {
            "benchmark": "hb",
            "system": "Gamma",
            "kind": "llm",
            "file": SimpleUploadedFile("a", body),
        },
        headers={"HX-Request": "true"},
    )
    assert_refused(response, "line 1", "question_id")
    assert table_counts() == before


@pytest.mark.parametrize("qid", ["a/b", "..", ".", "x\\y", "tab\there"])
def test_a_question_id_no_url_can_reach_is_refused_naming_the_line(world, qid):
    client = page_client(world, COORDINATOR)
    before = table_counts()
    response = upload(client, [question("ok0"), question(qid)])
    assert_refused(response, "line 2", "question_id")
    assert table_counts() == before


@pytest.mark.parametrize(
    "given, qid",
    [
        ("a b", "a b"),
        ("问题 一", "问题 一"),
        ("x?y#z", "x?y#z"),
        ("50%", "50%"),
        ("a+b", "a+b"),
        ("é…", "é…"),
        ("...", "..."),
        # Surrounding spaces are taken off, in questions and answers files alike.
        (" sp ", "sp"),
    ],
)
def test_every_page_of_an_accepted_question_id_works(world, given, qid):
    client = page_client(world, COORDINATOR)
    response = upload(client, [question(given)])
    assert response.status_code == 200, response.content.decode()[:2000]
    case = Case.objects.get(benchmark__slug="hb2")
    assert case.external_id == qid
    for name in ("case-detail", "rubric-editor", "rubric-history"):
        url = reverse(name, args=["hb2", qid])
        assert client.get(url).status_code == 200, (name, url)
    for name in ("api-case-detail", "api-rubric-version-list"):
        url = reverse(name, args=["hb2", qid])
        assert client.get(url).status_code == 200, (name, url)
    listing = client.get(reverse("benchmark-detail", args=["hb2"]))
    assert listing.status_code == 200
    assert reverse("case-detail", args=["hb2", qid]) in listing.content.decode()


def test_refusals_are_in_the_readers_language(world):
    client = page_client(world, COORDINATOR)
    client.cookies["django_language"] = "zh-hans"
    response = upload(client, [question("ok0"), question("a/b")])
    assert response.status_code == 400
    assert "第 2 行，字段“question_id”：不能包含“/”或“\\”" in response.content.decode()
    response = client.get("/benchmarks/hb/", {"q": NUL})
    assert_refused(response, "查询参数“q”含有NUL 字符")
    api = api_client(world, COORDINATOR)
    response = api.get(
        "/api/benchmarks/hb/responses/", {"system": NUL}, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert_refused(response, "查询参数“system”含有NUL 字符")
