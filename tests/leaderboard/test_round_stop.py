"""Stopping a round early: the live sequential card, the coordinator's notice (recorded
once), closing by itself and giving back unopened items, the savings line, the planning
panel. The demo's early-stop round is the world: its experts rated it until it decided."""

import pytest
from django.test import Client
from django.urls import reverse

from annotation import audit_actions
from annotation.models import Assignment, ReviewItem, ReviewRound
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_set_status
from annotation.services.review_votes import VoteInput, assignment_submit
from core.models import AuditEvent
from leaderboard.evidence.selectors.pick import agreement_evidence
from leaderboard.management.commands.load_demo import (
    DEMO_PASSWORD,
    DEMO_ROUND,
    EARLY_STOP_ROUND,
)
from leaderboard.sequential.chart import sequence_chart
from leaderboard.sequential.selectors.round_state import round_sequential
from leaderboard.sequential.services import ALREADY_RECORDED, CONTINUING, round_decision_check
from leaderboard.stats.reasons import NO_ITEM_TIMES
from leaderboard.stats.savings import decision_savings

DECIDED = audit_actions.ROUND_DECIDED


def test_savings_count_the_items_after_the_decision_at_the_median_pace():
    saved = decision_savings(
        decided_at=84,
        items_total=1243,
        ratings_needed=84 * 3,
        ratings_planned=1243 * 3,
        raters_per_item=3,
        median_item_seconds=120.0,
    )
    # A rating is one expert's verdicts on one item, as in the round's progress.
    assert (saved.items_not_needed, saved.ratings_not_needed) == (1159, 1159 * 3)
    assert saved.expert_hours == pytest.approx(1159 * 3 * 120 / 3600)
    unknown = decision_savings(
        decided_at=84,
        items_total=1243,
        ratings_needed=84 * 3,
        ratings_planned=1243 * 3,
        raters_per_item=3,
        median_item_seconds=None,
    )
    assert unknown.expert_hours is None and unknown.reason == NO_ITEM_TIMES


def test_the_chart_spans_the_round_and_thins_a_long_path():
    path = [[0.5 - i / 4000, 0.9] for i in range(1000)]
    chart = sequence_chart(path, threshold=0.75, items_total=1243, decided_at=None)
    assert len(chart["lower"].split()) <= 401 and chart["lower"].split()[-1].startswith(
        str(chart["used_x"])
    )
    assert chart["used_x"] < chart["right"]  # 1,000 of 1,243 items: short of the right edge
    assert sequence_chart([], threshold=0.75, items_total=3, decided_at=None) is None


@pytest.fixture
def demo(demo_loaded, db):
    return ReviewRound.objects.get(name=EARLY_STOP_ROUND)


def _coordinator() -> Client:
    client = Client()
    client.login(username="coordinator", password=DEMO_PASSWORD)
    return client


def test_the_demo_round_decided_was_recorded_once_and_closed_itself(demo):
    assert demo.status == ReviewRound.Status.CLOSED
    events = AuditEvent.objects.filter(action=DECIDED, details__round_id=demo.pk)
    assert events.count() == 1
    state = round_sequential(round_=demo).state
    assert state["decision"] == "pass" and events.get().details["decided_at"] == state["decided_at"]
    assert state["decided_at"] < state["items_total"]
    closed = AuditEvent.objects.get(
        action=audit_actions.ROUND_CLOSED, details__round=EARLY_STOP_ROUND
    )
    assert closed.details["because"] == "sequential test decided" and closed.actor is None
    # Checked again (a repeated task, a later submission): nothing more is recorded.
    assert round_decision_check(round_id=demo.pk) == ALREADY_RECORDED
    assert events.count() == 1
    # The report keeps every statistic of the rated items, and what the decision saved.
    report = agreement_evidence(benchmark=demo.benchmark, round_ref=str(demo.pk)).report
    assert report.units > 0 and report.wilson_95 is not None
    saved = report.sequential["savings"]
    assert saved["items_not_needed"] == state["items_total"] - state["decided_at"]
    assert saved["expert_hours"] > 0 and saved["median_item_seconds"] > 0


def test_the_dashboard_card_shows_decision_chart_and_savings(demo, django_assert_num_queries):
    client = _coordinator()
    page = client.get(reverse("review-round", args=[demo.pk])).content.decode()
    assert reverse("round-sequential", args=[demo.pk]) in page
    assert 'data-testid="decision-notice"' in page
    # Whatever the round's size: session, user, permissions; the round; the recorded
    # decision naming its judge; the gate policy, the round again, its items and that
    # judge's configuration and runs; the units (items, criteria, pseudonyms, votes, tasks,
    # verdicts); the hand-out ranks; the experts' times for the savings; the judges to
    # choose from.
    with django_assert_num_queries(21):
        card = client.get(reverse("round-sequential", args=[demo.pk]))
    html = card.content.decode()
    state = round_sequential(round_=demo).state
    assert f"Decided: the judge passes, after {state['decided_at']} of 42 items." in html
    assert 'data-testid="sequence-chart"' in html and 'data-testid="sequence-threshold"' in html
    assert "expert hours at the experts' median pace) not needed." in html
    # Closed already: no "close early" offer.
    assert "Close the round early" not in html
    listing = client.get(reverse("review-rounds")).content.decode()
    assert "decided: passes" in listing


def test_a_round_without_a_decision_offers_no_early_close_and_says_why(demo):
    round_ = ReviewRound.objects.get(name=DEMO_ROUND)
    assert round_decision_check(round_id=round_.pk) == CONTINUING
    html = _coordinator().get(reverse("round-sequential", args=[round_.pk])).content.decode()
    assert "Not decided yet: 0 of" in html and "Close the round early" not in html
    assert not AuditEvent.objects.filter(action=DECIDED, details__round_id=round_.pk).exists()


def test_closing_early_gives_back_the_unopened_items_only(demo):
    round_ = ReviewRound.objects.get(name=DEMO_ROUND)
    experts = list(round_.experts.order_by("username"))
    opened = assignment_next(expert=experts[0], round_=round_)
    criteria = opened.item.rubric_version.criteria.all()
    assignment_submit(
        assignment=opened,
        votes=[VoteInput(criterion_id=c.pk, hit=True) for c in criteria],
        comment="",
        active_seconds=0,
        base_revision=0,
    )
    unopened = assignment_next(expert=experts[1], round_=round_)
    counted = ReviewItem.objects.get(pk=unopened.item_id).assigned_count
    response = _coordinator().post(
        reverse("review-round-close", args=[round_.pk]), {"confirm": "yes", "release": "yes"}
    )
    assert response.status_code == 302
    assert not Assignment.objects.filter(pk=unopened.pk).exists()
    assert Assignment.objects.filter(pk=opened.pk, status="submitted").exists()
    assert ReviewItem.objects.get(pk=unopened.item_id).assigned_count == counted - 1
    event = AuditEvent.objects.filter(action=audit_actions.ROUND_CLOSED).first()
    assert event.details["released"] == 1


def test_closing_without_release_keeps_handed_out_items(demo):
    round_ = ReviewRound.objects.get(name=DEMO_ROUND)
    handed = assignment_next(expert=round_.experts.first(), round_=round_)
    round_set_status(round_=round_, status=ReviewRound.Status.CLOSED)
    assert Assignment.objects.filter(pk=handed.pk).exists()


def _submit_all_hit(assignment):
    assignment_submit(
        assignment=assignment,
        votes=[
            VoteInput(criterion_id=c.pk, hit=True)
            for c in assignment.item.rubric_version.criteria.all()
        ],
        comment="",
        active_seconds=0,
        base_revision=0,
    )


def test_a_settling_submission_queues_the_check_after_commit(
    demo, django_capture_on_commit_callbacks, monkeypatch
):
    round_ = ReviewRound.objects.get(name=DEMO_ROUND)
    ReviewRound.objects.filter(pk=round_.pk).update(close_when_decided=True)
    queued = []
    monkeypatch.setattr("leaderboard.tasks.round_decision_check_task.delay", queued.append)
    experts = list(round_.experts.order_by("pk"))
    first = assignment_next(expert=experts[0], round_=round_)
    with django_capture_on_commit_callbacks(execute=True):
        _submit_all_hit(first)
    # One rating of an item settles nothing, so nothing can move the test: no check.
    assert queued == []
    for expert in experts[1 : round_.raters_per_item]:
        with django_capture_on_commit_callbacks(execute=True):
            _submit_all_hit(assignment_next(expert=expert, round_=round_))
    # The item's last rater settles it: the check is queued for this round, once.
    assert queued == [round_.pk]
    round_.refresh_from_db()
    assert round_.status == ReviewRound.Status.OPEN
    assert not AuditEvent.objects.filter(action=DECIDED, details__round_id=round_.pk).exists()


def test_the_planning_panel_answers_with_the_plan_or_a_clear_message(demo):
    client = _coordinator()
    new = client.get(reverse("review-round-new")).content.decode()
    assert reverse("round-plan") in new
    benchmark = demo.benchmark.pk
    ok = client.get(
        reverse("round-plan"), {"benchmark": benchmark, "expected": "0.85", "threshold": "0.75"}
    )
    html = ok.content.decode()
    assert ok.status_code == 200 and 'data-testid="round-plan"' in html
    assert "Sequential test, median" in html and "Design effect" in html
    bad = client.get(
        reverse("round-plan"), {"benchmark": benchmark, "expected": "lots", "threshold": "2"}
    )
    text = bad.content.decode()
    assert bad.status_code == 400
    assert "Expected agreement: give a number" in text and "strictly between 0 and 1" in text
    assert "Likely decision of the sequential test" in html and "Sampling fraction" in html
    # Agreement expected just above the threshold: the simulated rounds stop at the
    # responses the benchmark has, and the panel says so.
    near = client.get(
        reverse("round-plan"), {"benchmark": benchmark, "expected": "0.76", "threshold": "0.75"}
    )
    text = near.content.decode()
    assert near.status_code == 200 and 'data-testid="round-plan-warnings"' in text
    assert "responses can be reviewed: the simulated rounds stop there." in text
    assert "no decision" in text


def test_a_decided_open_round_offers_the_coordinator_to_close_it_early(demo):
    round_set_status(round_=demo, status=ReviewRound.Status.OPEN)
    url = reverse("round-sequential", args=[demo.pk])
    html = _coordinator().get(url).content.decode()
    assert "Close the round early" in html
    assert f"/review/manage/rounds/{demo.pk}/close/?early=1" in html
    researcher = Client()
    researcher.login(username="researcher", password=DEMO_PASSWORD)
    shown = researcher.get(url)
    assert shown.status_code == 200 and "Close the round early" not in shown.content.decode()
    close = _coordinator().get(reverse("review-round-close", args=[demo.pk]) + "?early=1")
    assert 'data-testid="decision-notice"' in close.content.decode()


def test_the_agreement_page_states_what_the_decision_saved(demo):
    page = (
        _coordinator()
        .get(reverse("agreement", args=[demo.benchmark.slug]), {"round": demo.pk})
        .content.decode()
    )
    saved = round_sequential(round_=demo).state["savings"]
    assert (
        f"Decided after {saved['decided_at']} of {saved['items_total']} items; "
        f"{saved['ratings_not_needed']} ratings (about {saved['expert_hours']:.1f} expert hours"
    ) in page


def test_a_reopened_decided_round_is_not_closed_again_by_itself(demo):
    round_set_status(round_=demo, status=ReviewRound.Status.OPEN)
    assert round_decision_check(round_id=demo.pk) == ALREADY_RECORDED
    demo.refresh_from_db()
    assert demo.status == ReviewRound.Status.OPEN
