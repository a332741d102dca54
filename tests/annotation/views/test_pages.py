import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Case, Response
from tests.conftest import client_for, jsonl_bytes, question, table_counts
from tests.factories import CaseFactory, ResponseFactory, RubricVersionFactory, SystemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def case():
    case = CaseFactory(benchmark__slug="hb", external_id="c1")
    RubricVersionFactory(case=case, criteria=5)
    ResponseFactory(case=case, system=SystemFactory(name="SecretModel-A"))
    return case


def page_urls(case) -> list[str]:
    return [
        reverse("benchmark-list"),
        reverse("benchmark-detail", args=["hb"]),
        reverse("case-detail", args=["hb", case.external_id]),
    ]


def test_anonymous_users_are_sent_to_login(case):
    for url in [*page_urls(case), reverse("import"), reverse("home")]:
        response = client_for(None).get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url


def test_experts_and_users_without_a_role_are_refused(case, expert, outsider):
    for user in (expert, outsider):
        for url in [*page_urls(case), reverse("import")]:
            assert client_for(user).get(url).status_code == 403, (user, url)


def test_researchers_read_but_cannot_import(case, researcher):
    client = client_for(researcher)
    for url in page_urls(case):
        assert client.get(url).status_code == 200, url
    assert client.get(reverse("import")).status_code == 403
    upload = SimpleUploadedFile("q.jsonl", jsonl_bytes([question("n1")]))
    response = client.post(reverse("import-benchmark"), {"benchmark": "hb", "file": upload})
    assert response.status_code == 403
    assert not Case.objects.filter(external_id="n1").exists()


def test_home_sends_readers_to_benchmarks_and_shows_experts_their_page(researcher, expert):
    assert client_for(researcher).get(reverse("home"))["Location"] == reverse("benchmark-list")
    response = client_for(expert).get(reverse("home"), follow=True)
    assert response.redirect_chain[-1][0] == reverse("review-my-work")
    assert "Benchmarks" not in response.content.decode()


def test_benchmark_list_shows_counts(case, coordinator):
    body = client_for(coordinator).get(reverse("benchmark-list")).content.decode()
    assert 'href="/benchmarks/hb/"' in body
    assert '<td class="num">5</td>' in body  # criteria of the current version


def test_case_page_shows_chat_rubric_and_responses(case, coordinator):
    body = client_for(coordinator).get(reverse("case-detail", args=["hb", "c1"])).content.decode()
    assert 'class="turn role-a' in body and 'class="turn role-b' in body
    assert "我和室友又吵架了。" in body
    assert "criterion catastrophic" in body and "criterion penalty" in body
    assert "SecretModel-A" in body


def test_user_text_is_escaped(coordinator):
    case = CaseFactory(
        benchmark__slug="hb",
        external_id="x1",
        dialogue=[{"role": "A", "content": "<script>alert(1)</script>"}],
    )
    RubricVersionFactory(case=case)
    body = client_for(coordinator).get(reverse("case-detail", args=["hb", "x1"])).content.decode()
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_case_list_filters_and_paginates(coordinator):
    hard = CaseFactory.create_batch(3, benchmark__slug="hb", difficulty="hard")
    for case in [*hard, *CaseFactory.create_batch(30, benchmark__slug="hb")]:
        RubricVersionFactory(case=case)
    client = client_for(coordinator)
    body = client.get(
        reverse("benchmark-detail", args=["hb"]), {"difficulty": "hard"}
    ).content.decode()
    assert "3 cases" in body
    body = client.get(reverse("benchmark-detail", args=["hb"])).content.decode()
    assert "33 cases" in body and "Page 1 of 2" in body
    partial = client.get(
        reverse("benchmark-detail", args=["hb"]), {"page": 2}, headers={"HX-Request": "true"}
    ).content.decode()
    assert partial.startswith('<section id="case-table">') and "<html" not in partial


def test_case_list_filters_by_ability_of_the_current_rubric(coordinator):
    from annotation.models import Ability

    with_ability = CaseFactory(benchmark__slug="hb")
    RubricVersionFactory(case=with_ability, criteria=3)
    without = CaseFactory(benchmark__slug="hb")
    RubricVersionFactory(case=without, criteria=2)  # 情绪感知 and the catastrophic one
    ability = Ability.objects.get(label="言语表达")
    body = (
        client_for(coordinator)
        .get(reverse("benchmark-detail", args=["hb"]), {"ability": ability.pk})
        .content.decode()
    )
    assert with_ability.external_id in body and without.external_id not in body


def test_case_page_query_count_does_not_grow_with_the_rubric(coordinator):
    client = client_for(coordinator)
    counts = []
    for n, size in enumerate((3, 20)):
        case = CaseFactory(benchmark__slug="hb", external_id=f"q{n}")
        RubricVersionFactory(case=case, criteria=size)
        RubricVersionFactory(case=case, number=2, criteria=size)
        for _ in range(size // 3):
            ResponseFactory(case=case)
        with CaptureQueriesContext(connection) as queries:
            assert (
                client.get(reverse("case-detail", args=["hb", case.external_id])).status_code == 200
            )
        counts.append(len(queries))
    assert counts[0] == counts[1], counts


def test_benchmark_page_query_count_does_not_grow_with_cases(coordinator):
    client = client_for(coordinator)
    counts = []
    for total in (2, 20):
        for case in CaseFactory.create_batch(total, benchmark__slug=f"b{total}"):
            RubricVersionFactory(case=case)
        with CaptureQueriesContext(connection) as queries:
            client.get(reverse("benchmark-detail", args=[f"b{total}"]))
        counts.append(len(queries))
    assert counts[0] == counts[1], counts


def test_upload_page_imports_questions_and_responses(coordinator):
    client = client_for(coordinator)
    upload = SimpleUploadedFile("q.jsonl", jsonl_bytes([question("u1"), question("u2")]))
    response = client.post(
        reverse("import-benchmark"),
        {"benchmark": "up", "name": "Uploaded", "file": upload},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert "2 cases in the file, 2 new" in response.content.decode()
    answers = SimpleUploadedFile("a.jsonl", jsonl_bytes([{"question_id": "u1", "response": "嗯"}]))
    response = client.post(
        reverse("import-responses"),
        {"benchmark": "up", "system": "Uploaded model", "kind": "llm", "file": answers},
    )
    assert response.status_code == 200
    assert Response.objects.get().system.name == "Uploaded model"


def test_upload_page_shows_errors_and_writes_nothing(coordinator):
    client = client_for(coordinator)
    before = table_counts()
    upload = SimpleUploadedFile(
        "q.jsonl", jsonl_bytes([question("u1"), {**question("u2"), "difficulty": 3}])
    )
    response = client.post(
        reverse("import-benchmark"),
        {"benchmark": "up", "file": upload},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert "Nothing was imported" in body
    assert "line 2, field &#x27;difficulty&#x27;: expected a string, got integer" in body
    assert table_counts() == before


def test_upload_page_names_an_unknown_benchmark(coordinator):
    answers = SimpleUploadedFile("a.jsonl", jsonl_bytes([{"question_id": "u1", "response": "嗯"}]))
    response = client_for(coordinator).post(
        reverse("import-responses"),
        {"benchmark": "nope", "system": "S", "kind": "llm", "file": answers},
    )
    assert response.status_code == 400
    assert "There is no benchmark nope" in response.content.decode()
