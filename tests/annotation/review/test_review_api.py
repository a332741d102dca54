"""The review API: the expert's blind flow, the coordinator's steering, consensus and
adjudication, with the same permissions as the pages."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.roles import SENIOR_EXPERT
from accounts.services import user_create_with_role
from annotation.models import (
    Adjudication,
    Assignment,
    Flag,
    Guideline,
    ReviewItem,
    ReviewRound,
    System,
    Vote,
)
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from tests.annotation.review.conftest import assigned_minutes_ago
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def votes_body(assignment_id: int, client: APIClient, pattern, **extra) -> dict:
    """A body answering the item's criteria in order with `pattern`, read over the API."""
    item = client.get(reverse("api-review-assignment", args=[assignment_id])).json()
    return {
        "votes": [
            {"criterion": c["id"], "hit": hit, "note": f"理由{c['position']}"}
            for c, hit in zip(item["criteria"], pattern, strict=True)
        ],
        "comment": "整体不错",
        "active_seconds": 12,
        "base_revision": item["revision"],
        **extra,
    }


def take_and_submit(expert, round_, pattern) -> Assignment:
    client = api(expert)
    taken = client.post(reverse("api-review-next", args=[round_.pk]))
    assert taken.status_code in (200, 201), taken.content
    assignment_id = taken.json()["id"]
    body = votes_body(assignment_id, client, pattern)
    submitted = client.post(reverse("api-review-submit", args=[assignment_id]), body, format="json")
    assert submitted.json()["recorded"] is True
    return Assignment.objects.get(pk=assignment_id)


# The expert's flow ------------------------------------------------------------------------


def test_the_full_expert_flow(review_round, experts):
    client = api(experts[0])
    rounds = client.get(reverse("api-review-rounds"))
    assert rounds.status_code == 200
    assert [(r["name"], r["done"], r["open"]) for r in rounds.json()] == [("R1", 0, 0)]

    taken = client.post(reverse("api-review-next", args=[review_round.pk]))
    assert taken.status_code == 201
    first = taken.json()
    assignment = Assignment.objects.get(pk=first["id"], expert=experts[0])
    assert first["code"] == assignment.item.code
    assert first["response_text"] == assignment.item.response.text
    assert first["dialogue"] == assignment.item.response.case.dialogue
    assert first["status"] == "assigned" and first["revision"] == 0
    assert [c["position"] for c in first["criteria"]] == [1, 2, 3, 4]
    assert first["criteria"][2]["is_penalty"] is True
    assert first["criteria"][3]["is_catastrophic"] is True
    assert all(a["hit"] is None for a in first["answers"])
    # Asking again before finishing gives the same item back.
    again = client.post(reverse("api-review-next", args=[review_round.pk]))
    assert again.status_code == 200 and again.json()["id"] == first["id"]

    url = reverse("api-review-assignment", args=[first["id"]])
    assert client.get(url).json() == first

    assigned_minutes_ago(assignment)
    body = votes_body(first["id"], client, [False, None, None, None])
    saved = client.post(reverse("api-review-autosave", args=[first["id"]]), body, format="json")
    assert saved.status_code == 200
    assert saved.json() == {"saved": True, "active_seconds": 12}
    reloaded = client.get(url).json()
    assert reloaded["status"] == "in_progress" and reloaded["comment"] == "整体不错"
    assert [a["hit"] for a in reloaded["answers"]] == [False, None, None, None]
    assert not Vote.objects.exists()

    body = votes_body(first["id"], client, [True, False, False, True])
    submit_url = reverse("api-review-submit", args=[first["id"]])
    once = client.post(submit_url, body, format="json")
    twice = client.post(submit_url, body, format="json")
    assert once.json() == {"recorded": True, "revision": 1}
    assert twice.status_code == 200 and twice.json() == {"recorded": False, "revision": 1}
    assert Vote.objects.filter(assignment_id=first["id"]).count() == 4
    after = client.get(url).json()
    assert after["status"] == "submitted" and after["revision"] == 1
    assert [a["hit"] for a in after["answers"]] == [True, False, False, True]

    following = client.post(reverse("api-review-next", args=[review_round.pk]))
    assert following.status_code == 201 and following.json()["id"] != first["id"]
    rounds = client.get(reverse("api-review-rounds")).json()
    assert (rounds[0]["done"], rounds[0]["open"]) == (1, 1)


def test_next_says_204_when_nothing_is_left_and_409_when_refused(review_data, experts):
    benchmark, systems = review_data
    round_ = round_open(
        benchmark=benchmark,
        name="capped",
        systems=systems,
        experts=experts[:1],
        raters_per_item=1,
        max_items_per_expert=1,
    )
    take_and_submit(experts[0], round_, [True, True, False, False])
    client = api(experts[0])
    url = reverse("api-review-next", args=[round_.pk])
    nothing = client.post(url)
    assert nothing.status_code == 204 and nothing.content == b""
    ReviewRound.objects.filter(pk=round_.pk).update(status="paused")
    refused = client.post(url)
    assert refused.status_code == 409
    assert refused.json() == {"detail": "This round is not open."}
    # A round the expert is not in does not exist for them.
    assert api(experts[1]).post(url).status_code == 404


def test_submissions_are_checked_like_on_the_page(review_round, experts, review_data):
    client = api(experts[0])
    assignment = assignment_next(expert=experts[0], round_=review_round)
    submit_url = reverse("api-review-submit", args=[assignment.pk])
    incomplete = client.post(
        submit_url, votes_body(assignment.pk, client, [True, None, None, False]), format="json"
    )
    assert incomplete.status_code == 400
    assert "missing: 2, 3" in incomplete.json()["detail"]

    other_case = ReviewItem.objects.filter(round=review_round).exclude(
        response__case=assignment.item.response.case
    )[0]
    stranger = item_criteria(assignment=Assignment(item=other_case))[0]
    body = votes_body(assignment.pk, client, [True, True, True, True])
    body["votes"][0]["criterion"] = stranger.pk
    for name in ("api-review-autosave", "api-review-submit"):
        wrong = client.post(reverse(name, args=[assignment.pk]), body, format="json")
        assert wrong.status_code == 400
        assert wrong.json()["detail"] == "Some answers are for criteria this item does not have."

    no_revision = votes_body(assignment.pk, client, [True, True, True, True])
    del no_revision["base_revision"]
    assert client.post(submit_url, no_revision, format="json").status_code == 400

    ReviewRound.objects.filter(pk=review_round.pk).update(status="closed")
    body = votes_body(assignment.pk, client, [True, True, True, True])
    for name in ("api-review-autosave", "api-review-submit"):
        closed = client.post(reverse(name, args=[assignment.pk]), body, format="json")
        assert closed.status_code == 400 and "closed" in closed.json()["detail"]
    assert not Vote.objects.exists()


def test_an_expert_flags_an_item(review_round, experts):
    client = api(experts[0])
    assignment = assignment_next(expert=experts[0], round_=review_round)
    url = reverse("api-review-flag", args=[assignment.pk])
    flagged = client.post(url, {"reason": "broken_text", "note": " 乱码 "}, format="json")
    assert flagged.status_code == 201
    assert flagged.json()["reason"] == "broken_text" and flagged.json()["note"] == "乱码"
    assert client.post(url, {"reason": "boring"}, format="json").status_code == 400
    assert Flag.objects.filter(assignment=assignment).count() == 1


def test_another_experts_assignment_is_404_on_every_expert_endpoint(review_round, experts):
    assignment = assignment_next(expert=experts[0], round_=review_round)
    body = votes_body(assignment.pk, api(experts[0]), [True, True, True, True])
    other = api(experts[1])
    found = other.get(reverse("api-review-assignment", args=[assignment.pk]))
    assert found.status_code == 404
    for name, data in (
        ("api-review-autosave", body),
        ("api-review-submit", body),
        ("api-review-flag", {"reason": "other", "note": ""}),
    ):
        response = other.post(reverse(name, args=[assignment.pk]), data, format="json")
        assert response.status_code == 404, name
    assignment.refresh_from_db()
    assert assignment.status == "assigned" and assignment.draft == {}
    assert not Vote.objects.exists() and not Flag.objects.exists()


def test_an_expert_never_receives_a_system_name_or_anothers_votes(review_round, experts):
    names = list(System.objects.values_list("name", flat=True))
    assert len(names) == 3
    take_and_submit(experts[1], review_round, [True, True, True, True])
    Vote.objects.update(note="secret-note-of-exp2")
    client = api(experts[0])
    bodies = [client.get(reverse("api-review-rounds")).content]
    taken = client.post(reverse("api-review-next", args=[review_round.pk]))
    assignment_id = taken.json()["id"]
    bodies.append(taken.content)
    url = reverse("api-review-assignment", args=[assignment_id])
    bodies.append(client.get(url).content)
    assert set(client.get(url).json()) == {
        "id",
        "code",
        "round",
        "status",
        "revision",
        "difficulty",
        "dialogue",
        "response_text",
        "criteria",
        "answers",
        "comment",
        "guidelines",
    }
    body = votes_body(assignment_id, client, [True, False, True, False])
    for name in ("api-review-autosave", "api-review-submit", "api-review-submit"):
        bodies.append(client.post(reverse(name, args=[assignment_id]), body, format="json").content)
    flag = {"reason": "other", "note": ""}
    bodies.append(
        client.post(reverse("api-review-flag", args=[assignment_id]), flag, format="json").content
    )
    bodies.append(client.get(url).content)
    following = client.post(reverse("api-review-next", args=[review_round.pk]))
    bodies.append(following.content)
    someone_elses = Assignment.objects.filter(expert=experts[1]).first()
    bodies.append(client.get(reverse("api-review-assignment", args=[someone_elses.pk])).content)
    bodies.append(client.get(reverse("api-review-manage-round", args=[review_round.pk])).content)
    for content in bodies:
        text = content.decode()
        for name in names:
            assert name not in text
        assert "secret-note-of-exp2" not in text
        assert "system" not in text.lower()


def test_a_calibration_result_shows_only_when_complete(review_data, experts, coordinator):
    benchmark, systems = review_data
    round_ = round_open(
        benchmark=benchmark,
        name="calib",
        systems=systems[:1],
        experts=experts[:1],
        fraction=0.2,
        raters_per_item=1,
        is_calibration=True,
    )
    items = list(round_.items.all())
    assert len(items) == 2
    for item in items:
        criteria = item_criteria(assignment=Assignment(item=item))
        answers = [{"criterion": c.pk, "hit": True, "explanation": "因为"} for c in criteria]
        saved = api(coordinator).post(
            reverse("api-review-manage-references", args=[item.pk]),
            {"answers": answers},
            format="json",
        )
        assert saved.status_code == 200
    take_and_submit(experts[0], round_, [True, True, True, True])
    client = api(experts[0])
    calibration = client.get(reverse("api-review-rounds")).json()[0]["calibration"]
    assert calibration["complete"] is False and calibration["details"] == []
    take_and_submit(experts[0], round_, [True, True, True, False])
    calibration = client.get(reverse("api-review-rounds")).json()[0]["calibration"]
    assert calibration["complete"] is True and calibration["agreement"] == 7 / 8
    assert calibration["passed"] is True and len(calibration["details"]) == 8


# The coordinator's side -------------------------------------------------------------------


def test_a_coordinator_opens_a_round(review_data, experts, coordinator):
    client = api(coordinator)
    url = reverse("api-review-manage-rounds")
    body = {
        "benchmark": "hb",
        "name": "API round",
        "systems": ["SecretAlpha-7b", "SecretBeta-70b", "SecretAlpha-7b"],
        "experts": ["exp1", "exp2", "exp3", "exp1"],
        "fraction": 0.5,
        "seed": 7,
        "raters_per_item": 2,
        "max_items_per_expert": 4,
        "deadline": "2031-01-31",
        "is_calibration": False,
    }
    created = client.post(url, body, format="json")
    assert created.status_code == 201, created.content
    data = created.json()
    round_ = ReviewRound.objects.get(name="API round")
    assert data["id"] == round_.pk and round_.created_by == coordinator
    assert data["systems"] == ["SecretAlpha-7b", "SecretBeta-70b"]
    assert data["experts"] == ["exp1", "exp2", "exp3"]
    assert (data["raters_per_item"], data["max_items_per_expert"]) == (2, 4)
    assert data["deadline"] == "2031-01-31" and data["status"] == "open"
    assert data["item_count"] == len(data["items"]) == round_.items.count() == 10
    first = data["items"][0]
    item = ReviewItem.objects.get(pk=first["id"])
    assert first["code"] == item.code
    assert first["question_id"] == item.response.case.external_id
    assert first["system"] == item.response.system.name
    assert first["assigned_count"] == 0 and first["assignments"] == []
    assert [r["name"] for r in client.get(url).json()] == ["API round"]

    def refused(**changes) -> dict:
        response = client.post(url, {**body, **changes}, format="json")
        assert response.status_code == 400, changes
        return response.json()

    assert refused()["detail"] == "A round named “API round” already exists."
    assert "sampling fraction" in refused(name="R2", fraction=0)["detail"]
    assert "at least 3 experts" in refused(name="R2", raters_per_item=3, experts=["exp1"])["detail"]
    assert "systems" in refused(name="R2", systems=["NoSuchSystem"])
    assert "benchmark" in refused(name="R2", benchmark="nope")
    # Only people who annotate may join a pool.
    assert "experts" in refused(name="R2", experts=["exp1", "coord"])
    assert ReviewRound.objects.count() == 1


def test_a_coordinator_extends_pauses_and_closes(review_round, experts, coordinator):
    client = api(coordinator)
    before = review_round.items.count()
    extend = reverse("api-review-manage-round-extend", args=[review_round.pk])
    grown = client.post(extend, {"fraction": 0.6}, format="json")
    assert grown.status_code == 200
    assert grown.json()["added"] == review_round.items.count() - before > 0
    assert grown.json()["round"]["fraction"] == 0.6
    smaller = client.post(extend, {"fraction": 0.5}, format="json")
    assert smaller.status_code == 400
    assert smaller.json()["detail"] == "Extend to a larger fraction than the round has now."
    assert client.post(extend, {"fraction": 2}, format="json").status_code == 400

    status_url = reverse("api-review-manage-round-status", args=[review_round.pk])
    paused = client.post(status_url, {"status": "paused"}, format="json")
    assert paused.status_code == 200 and paused.json()["status"] == "paused"
    assert (
        api(experts[0]).post(reverse("api-review-next", args=[review_round.pk])).status_code == 409
    )
    assert client.post(status_url, {"status": "gone"}, format="json").status_code == 400
    assert client.post(status_url, {"status": "closed"}, format="json").status_code == 409
    client.post(status_url, {"status": "closed", "confirm": True}, format="json")
    review_round.refresh_from_db()
    assert review_round.status == "closed"
    assert api(experts[0]).get(reverse("api-review-rounds")).json() == []
    detail = client.get(reverse("api-review-manage-round", args=[review_round.pk]))
    assert detail.json()["status"] == "closed"


def test_a_coordinator_reassigns_an_unstarted_item(review_data, experts, coordinator):
    benchmark, systems = review_data
    round_ = round_open(benchmark=benchmark, name="pool4", systems=systems, experts=experts)
    assignment = assignment_next(expert=experts[0], round_=round_)
    url = reverse("api-review-manage-reassign", args=[assignment.pk])
    client = api(coordinator)
    moved = client.post(url, {"expert": "exp4"}, format="json")
    assert moved.status_code == 200
    assert moved.json()["expert"] == "exp4" and moved.json()["code"] == assignment.item.code
    assignment.refresh_from_db()
    assert assignment.expert == experts[3]
    # The former holder no longer reaches it.
    gone = api(experts[0]).get(reverse("api-review-assignment", args=[assignment.pk]))
    assert gone.status_code == 404

    api(experts[3]).post(
        reverse("api-review-autosave", args=[assignment.pk]),
        {"votes": [], "comment": "", "active_seconds": 3},
        format="json",
    )
    started = client.post(url, {"expert": "exp1"}, format="json")
    assert started.status_code == 409
    assert started.json()["detail"] == "Only an item nobody has started can be reassigned."
    fresh = assignment_next(expert=experts[1], round_=round_)
    outside = user_create_with_role(username="exp9", password=PASSWORD, role="Expert")
    not_in_pool = client.post(
        reverse("api-review-manage-reassign", args=[fresh.pk]),
        {"expert": outside.username},
        format="json",
    )
    assert not_in_pool.status_code == 409
    unknown = client.post(
        reverse("api-review-manage-reassign", args=[fresh.pk]), {"expert": "nobody"}, format="json"
    )
    assert unknown.status_code == 400


def test_guidelines_reach_the_experts(review_round, experts, coordinator):
    client = api(coordinator)
    url = reverse("api-review-manage-guidelines", args=["hb"])
    assert client.get(url).json()["text"] == ""
    saved = client.put(url, {"text": "  先读完整段对话。 "}, format="json")
    assert saved.status_code == 200
    assert saved.json()["text"] == "先读完整段对话。" and saved.json()["updated_by"] == "coord"
    assert Guideline.objects.get(benchmark__slug="hb").updated_by == coordinator
    assert client.put(url, {"text": ""}, format="json").status_code == 400
    assert (
        client.put(
            reverse("api-review-manage-guidelines", args=["nope"]), {"text": "x"}, format="json"
        ).status_code
        == 404
    )
    assignment = assignment_next(expert=experts[0], round_=review_round)
    shown = api(experts[0]).get(reverse("api-review-assignment", args=[assignment.pk]))
    assert shown.json()["guidelines"] == "先读完整段对话。"


def test_reference_answers_need_every_criterion_of_the_item(review_round, coordinator):
    item = review_round.items.first()
    other = review_round.items.exclude(rubric_version=item.rubric_version).first()
    criteria = item_criteria(assignment=Assignment(item=item))
    url = reverse("api-review-manage-references", args=[item.pk])
    client = api(coordinator)
    answers = [
        {"criterion": c.pk, "hit": c.position % 2 == 1, "explanation": f"因为{c.position}"}
        for c in criteria
    ]
    partial = client.post(url, {"answers": answers[:3]}, format="json")
    assert partial.status_code == 400
    assert partial.json()["detail"] == "Give the reference answer for every criterion."
    foreign = item_criteria(assignment=Assignment(item=other))[0]
    wrong = [*answers[:3], {**answers[3], "criterion": foreign.pk}]
    assert client.post(url, {"answers": wrong}, format="json").status_code == 400
    item.refresh_from_db()
    assert not item.is_reference and not item.references.exists()
    saved = client.post(url, {"answers": answers}, format="json")
    assert saved.status_code == 200
    data = saved.json()
    assert data["is_reference"] is True and data["code"] == item.code
    assert [(a["position"], a["hit"]) for a in data["answers"]] == [
        (1, True),
        (2, False),
        (3, True),
        (4, False),
    ]
    assert api().post(url, {"answers": answers}, format="json").status_code == 401


# Consensus and adjudication ---------------------------------------------------------------


def test_consensus_for_coordinators_and_researchers_only(
    review_round, experts, coordinator, researcher
):
    done = [
        take_and_submit(expert, review_round, pattern)
        for expert, pattern in zip(
            experts[:3],
            ([True, True, False, False], [True, False, False, False], [False, True, True, False]),
            strict=True,
        )
    ]
    assert len({a.item_id for a in done}) == 1
    url = reverse("api-review-manage-round-consensus", args=[review_round.pk])
    for user in (coordinator, researcher):
        response = api(user).get(url)
        assert response.status_code == 200
        rows = response.json()
    assert len(rows) == review_round.items.count()
    voted = next(r for r in rows if r["item"] == done[0].item_id)
    assert voted["code"] == done[0].item.code
    assert [
        (c["position"], c["votes"], c["hits"], c["outcome"], c["label"]) for c in voted["criteria"]
    ] == [
        (1, 3, 2, "majority", True),
        (2, 3, 2, "majority", True),
        (3, 3, 1, "majority", False),
        (4, 3, 0, "majority", False),
    ]
    untouched = next(r for r in rows if r["item"] != done[0].item_id)
    assert {(c["votes"], c["outcome"], c["label"]) for c in untouched["criteria"]} == {
        (0, "no votes", None)
    }
    for user in experts[:3]:
        assert api(user).get(url).status_code == 403


def test_adjudication_is_kept_beside_the_votes(review_round, experts, coordinator):
    assignment = take_and_submit(experts[0], review_round, [True, True, False, False])
    api(experts[0]).post(
        reverse("api-review-flag", args=[assignment.pk]), {"reason": "other"}, format="json"
    )
    item = assignment.item
    criterion = item_criteria(assignment=assignment)[1]
    url = reverse("api-review-manage-adjudicate", args=[item.pk])
    client = api(coordinator)
    decided = client.post(
        url, {"criterion": criterion.pk, "decision": False, "note": " 看原文 "}, format="json"
    )
    assert decided.status_code == 200
    data = decided.json()
    assert (data["item"], data["criterion"], data["decision"]) == (item.pk, criterion.pk, False)
    assert data["note"] == "看原文" and data["by"] == "coord"
    changed = client.post(url, {"criterion": criterion.pk, "decision": True}, format="json")
    assert changed.json()["id"] == data["id"] and changed.json()["decision"] is True
    whole = client.post(url, {"criterion": None, "note": "整体没问题"}, format="json")
    assert whole.status_code == 200 and whole.json()["criterion"] is None
    assert Adjudication.objects.filter(item=item).count() == 2
    assert not Flag.objects.filter(resolved=False).exists()
    assert Vote.objects.filter(assignment=assignment, criterion=criterion).get().hit is True

    other = ReviewItem.objects.filter(round=review_round).exclude(
        rubric_version=item.rubric_version
    )[0]
    foreign = item_criteria(assignment=Assignment(item=other))[0]
    wrong = client.post(url, {"criterion": foreign.pk, "decision": True}, format="json")
    assert wrong.status_code == 400

    senior = user_create_with_role(username="senior", password=PASSWORD, role=SENIOR_EXPERT)
    by_senior = api(senior).post(url, {"criterion": criterion.pk, "decision": False}, format="json")
    assert by_senior.status_code == 200
    for name in System.objects.values_list("name", flat=True):
        assert name not in by_senior.content.decode()
    consensus = reverse("api-review-manage-round-consensus", args=[review_round.pk])
    assert api(senior).get(consensus).status_code == 403


# Roles ------------------------------------------------------------------------------------


def endpoints(round_, assignment, item) -> list[tuple[str, str, list, set[str]]]:
    """(method, url name, args, the roles allowed) for every review endpoint."""
    expert_only = {"expert"}
    manage = {"coordinator"}
    return [
        ("get", "api-review-rounds", [], expert_only),
        ("post", "api-review-next", [round_.pk], expert_only),
        ("get", "api-review-assignment", [assignment.pk], expert_only),
        ("post", "api-review-autosave", [assignment.pk], expert_only),
        ("post", "api-review-submit", [assignment.pk], expert_only),
        ("post", "api-review-flag", [assignment.pk], expert_only),
        ("get", "api-review-manage-rounds", [], manage),
        ("post", "api-review-manage-rounds", [], manage),
        ("get", "api-review-manage-round", [round_.pk], manage),
        ("post", "api-review-manage-round-extend", [round_.pk], manage),
        ("post", "api-review-manage-round-status", [round_.pk], manage),
        ("post", "api-review-manage-reassign", [assignment.pk], manage),
        ("get", "api-review-manage-guidelines", ["hb"], manage),
        ("put", "api-review-manage-guidelines", ["hb"], manage),
        ("post", "api-review-manage-references", [item.pk], manage),
        ("get", "api-review-manage-round-consensus", [round_.pk], {"coordinator", "researcher"}),
        ("post", "api-review-manage-adjudicate", [item.pk], manage),
    ]


def test_every_endpoint_is_401_anonymous_and_403_for_other_roles(
    review_round, experts, coordinator, researcher, outsider
):
    assignment = assignment_next(expert=experts[0], round_=review_round)
    roles = {
        "coordinator": coordinator,
        "researcher": researcher,
        "expert": experts[0],
        "outsider": outsider,
    }
    for method, name, args, allowed in endpoints(review_round, assignment, assignment.item):
        url = reverse(name, args=args)
        anonymous = getattr(api(), method)(url, {}, format="json")
        assert anonymous.status_code == 401, name
        for role, user in roles.items():
            if role in allowed:
                continue
            response = getattr(api(user), method)(url, {}, format="json")
            assert response.status_code == 403, (name, role)
    # Nothing above changed anything.
    assignment.refresh_from_db()
    assert assignment.status == "assigned" and assignment.expert == experts[0]
    assert not Flag.objects.exists() and not Adjudication.objects.exists()
    assert not Guideline.objects.exists() and ReviewRound.objects.count() == 1
