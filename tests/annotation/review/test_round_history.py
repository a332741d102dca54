"""A round as it stood at a moment (`round_as_of`, `reference_answers_as_of`): an extension
keeps the chance every item had before it, setting reference answers keeps what the item
was before, so the round at any moment is told from the audit log. A round extended before
the log kept the chances is read as it stands."""

import datetime as dt

import pytest
from django.utils import timezone

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation import audit_actions
from annotation.audit_details import details_sentences
from annotation.models import Benchmark, ReviewItem, System
from annotation.selectors.round_history import reference_answers_as_of, round_as_of
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_rounds import round_extend, round_open
from annotation.services.review_votes import reference_answers_set
from core.models import AuditEvent
from tests.conftest import jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db


@pytest.fixture
def round_():
    """A round by system over Big's 10 answers and Small's 4: 3 items from each."""
    benchmark_import(
        chunks=lines(jsonl_bytes([question(f"q{i}") for i in range(10)])), benchmark_slug="rh"
    )
    for name, count in (("Big", 10), ("Small", 4)):
        answers = [{"question_id": f"q{i}", "response": f"回答 {i}"} for i in range(count)]
        responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="rh", system_name=name)
    experts = [
        user_create_with_role(username=f"rh{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    return round_open(
        benchmark=Benchmark.objects.get(slug="rh"),
        name="历史",
        systems=list(System.objects.all()),
        experts=experts,
        fraction=6 / 14,
        sampling="by_system",
    )


def _chances(round_) -> dict[int, float]:
    return dict(round_.items.values_list("response_id", "inclusion_probability"))


def _moment():
    """A moment strictly between two writes."""
    moment = timezone.now()
    while timezone.now() <= moment:
        pass
    return moment


def test_extending_keeps_the_chances_each_extension_raised(round_):
    opened = _chances(round_)
    first = _moment()
    round_extend(round_=round_, fraction=8 / 14)
    between = _chances(round_)
    second = _moment()
    round_extend(round_=round_, fraction=10 / 14)
    event = AuditEvent.objects.filter(action=audit_actions.ROUND_EXTENDED).order_by("pk").first()
    assert event.details["chances_before"] == {str(k): v for k, v in sorted(opened.items())}
    # Before the first extension, between the two and after both.
    for when, chances, fraction, extensions in (
        (first, opened, 6 / 14, 0),
        (second, between, 8 / 14, 1),
        (timezone.now(), _chances(round_), 10 / 14, 2),
    ):
        then = round_as_of(round_=round_, when=when)
        assert then.chances == chances
        assert then.fraction == pytest.approx(fraction)
        assert len(then.extensions) == extensions and then.recorded
    assert len(opened) < len(between) < round_.items.count()
    assert set(opened.values()) != set(between.values())


def test_a_round_extended_before_the_log_kept_chances_is_read_as_it_stands(round_):
    before = _moment()
    round_extend(round_=round_, fraction=10 / 14)
    event = AuditEvent.objects.get(action=audit_actions.ROUND_EXTENDED)
    event.details.pop("chances_before")
    AuditEvent.objects.filter(pk=event.pk).update(details=event.details)
    then = round_as_of(round_=round_, when=before)
    assert not then.recorded
    assert then.chances == _chances(round_)
    assert len(then.extensions) == 1


def test_the_log_says_how_many_chances_extending_kept_not_each(round_):
    round_extend(round_=round_, fraction=10 / 14)
    event = AuditEvent.objects.get(action=audit_actions.ROUND_EXTENDED)
    sentences = details_sentences(event.details)
    assert "Items whose earlier chance was kept: 6." in sentences
    assert not any("0.3" in sentence for sentence in sentences)


def test_reference_answers_keep_what_they_replaced(round_):
    item = round_.items.order_by("hand_out_rank").first()
    criteria = list(item.rubric_version.criteria.order_by("position"))
    unmarked = _moment()
    reference_answers_set(item=item, answers={c.pk: (True, "首次") for c in criteria})
    marked = _moment()
    reference_answers_set(item=item, answers={criteria[0].pk: (False, "改正")})
    event = AuditEvent.objects.filter(action=audit_actions.REFERENCE_SET).order_by("pk").last()
    assert event.details["was_reference"] is True
    assert event.details["before"][0] == {"criterion": 1, "hit": True, "explanation": "首次"}
    assert event.details["answers"][0] == {"criterion": 1, "hit": False, "explanation": "改正"}
    assert not round_as_of(round_=round_, when=unmarked).references
    assert reference_answers_as_of(round_=round_, when=unmarked) == []
    assert round_as_of(round_=round_, when=marked).references == {item.response_id}
    then = reference_answers_as_of(round_=round_, when=marked)
    assert [(row[4], row[5], row[6]) for row in then] == [
        (c.position, True, "首次") for c in criteria
    ]
    now = reference_answers_as_of(round_=round_, when=timezone.now())
    assert now[0][5:] == (False, "改正") and now[1:] == then[1:]


def test_reference_items_set_before_the_log_kept_them_are_read_as_they_stand(round_):
    item = round_.items.order_by("hand_out_rank").first()
    criteria = list(item.rubric_version.criteria.order_by("position"))
    reference_answers_set(item=item, answers={c.pk: (True, "") for c in criteria})
    AuditEvent.objects.filter(action=audit_actions.REFERENCE_SET).delete()
    long_ago = timezone.now() - dt.timedelta(days=1)
    assert round_as_of(round_=round_, when=long_ago).references == {item.response_id}
    assert len(reference_answers_as_of(round_=round_, when=long_ago)) == len(criteria)
    assert ReviewItem.objects.get(pk=item.pk).is_reference
