import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Assignment, System, Vote
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from tests.annotation.review.conftest import assigned_minutes_ago
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def form_for(assignment, pattern) -> dict:
    data = {"base_revision": str(assignment.revision), "active_seconds": "12", "comment": "好"}
    for criterion, hit in zip(item_criteria(assignment=assignment), pattern, strict=True):
        if hit is not None:
            data[f"hit-{criterion.pk}"] = "1" if hit else "0"
        data[f"note-{criterion.pk}"] = "因为"
    return data


def test_next_item_opens_the_annotation_page_and_submit_opens_the_next(review_round, experts):
    client = client_for(experts[0])
    response = client.post(reverse("review-next", args=[review_round.pk]))
    first = Assignment.objects.get(expert=experts[0])
    assert response["Location"] == reverse("review-annotate", args=[first.pk])
    page = client.get(response["Location"]).content.decode()
    assert first.item.code in page and first.item.response.text in page
    assigned_minutes_ago(first)
    submitted = client.post(
        reverse("review-submit", args=[first.pk]), form_for(first, [True, False, True, False])
    )
    second = Assignment.objects.filter(expert=experts[0]).exclude(pk=first.pk).get()
    assert submitted["Location"] == reverse("review-annotate", args=[second.pk])
    first.refresh_from_db()
    assert first.status == "submitted" and first.active_seconds == 12
    assert Vote.objects.filter(assignment=first).count() == 4


def test_an_incomplete_submission_keeps_the_answers_on_the_page(review_round, experts):
    client = client_for(experts[0])
    assignment = assignment_next(expert=experts[0], round_=review_round)
    response = client.post(
        reverse("review-submit", args=[assignment.pk]),
        form_for(assignment, [True, None, None, False]),
    )
    assert response.status_code == 422
    body = response.content.decode()
    assert "missing: 2, 3" in body
    assert body.count("checked") == 2


def test_autosave_then_reload_shows_the_saved_answers(review_round, experts):
    client = client_for(experts[0])
    assignment = assignment_next(expert=experts[0], round_=review_round)
    assigned_minutes_ago(assignment)
    saved = client.post(
        reverse("review-autosave", args=[assignment.pk]),
        form_for(assignment, [False, None, None, None]),
    )
    assert saved.json() == {"saved": True, "active_seconds": 12}
    page = client.get(reverse("review-annotate", args=[assignment.pk])).content.decode()
    assert page.count("checked") == 1 and 'value="0" checked' in page


def test_an_expert_cannot_open_or_change_another_experts_item(review_round, experts):
    assignment = assignment_next(expert=experts[0], round_=review_round)
    other = client_for(experts[1])
    for name in ("review-annotate",):
        assert other.get(reverse(name, args=[assignment.pk])).status_code == 404
    for name in ("review-autosave", "review-submit", "review-flag"):
        assert other.post(reverse(name, args=[assignment.pk]), {}).status_code == 404
    assert client_for(None).get(reverse("review-annotate", args=[assignment.pk])).status_code == 302


def test_no_page_an_expert_reaches_names_a_system_or_shows_others_votes(review_round, experts):
    names = list(System.objects.values_list("name", flat=True))
    first = assignment_next(expert=experts[1], round_=review_round)
    client_for(experts[1]).post(
        reverse("review-submit", args=[first.pk]), form_for(first, [True, True, True, True])
    )
    client = client_for(experts[0])
    pages = [reverse("home"), reverse("review-my-work")]
    assignment = assignment_next(expert=experts[0], round_=review_round)
    pages += [reverse("review-annotate", args=[assignment.pk])]
    # The same item as the other expert's, so their votes would be there if they leaked.
    shared, _ = Assignment.objects.get_or_create(item=first.item, expert=experts[0])
    pages += [reverse("review-annotate", args=[shared.pk])]
    for url in pages:
        body = client.get(url, follow=True).content.decode()
        for name in names:
            assert name not in body, (url, name)
        assert "exp2" not in body  # nothing about the other expert or their votes


def test_annotation_page_and_next_item_queries_do_not_grow_with_the_round(review_data, experts):
    benchmark, systems = review_data
    counts = []
    for fraction, name in ((0.1, "small"), (0.9, "large")):
        round_ = round_open(
            benchmark=benchmark,
            name=name,
            systems=systems,
            experts=experts[:3],
            fraction=fraction,
        )
        client = client_for(experts[0])
        with CaptureQueriesContext(connection) as next_queries:
            response = client.post(reverse("review-next", args=[round_.pk]))
        with CaptureQueriesContext(connection) as page_queries:
            assert client.get(response["Location"]).status_code == 200
        counts.append((len(next_queries), len(page_queries)))
        Assignment.objects.filter(expert=experts[0]).update(status="submitted")
    assert counts[0] == counts[1], counts


@pytest.mark.parametrize(
    ("language", "legend"), [("en", "Verdict on criterion 2"), ("zh-hans", "第 2 条评分标准的判断")]
)
def test_each_criterion_s_choices_are_named_by_its_position_in_the_reader_s_language(
    review_round, experts, language, legend
):
    client = client_for(experts[0])
    client.cookies["django_language"] = language
    assignment = assignment_next(expert=experts[0], round_=review_round)
    page = client.get(reverse("review-annotate", args=[assignment.pk])).content.decode()
    assert f'<legend class="visually-hidden">{legend}</legend>' in page
    ids = [c.pk for c in item_criteria(assignment=assignment)]
    # Ids as the form posts them back, positions from 1 in rubric order.
    assert f'name="hit-{ids[1]}"' in page and f'id="crit-{ids[1]}"' in page
    assert '<span class="pos">2.</span>' in page
