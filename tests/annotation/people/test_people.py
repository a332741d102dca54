"""Coordinators manage people without Django's admin: invitation links, roles, activation,
reset links, each change audited."""

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.invitations import token_hash
from accounts.models import Invitation
from accounts.roles import COORDINATOR, EXPERT, RESEARCHER, SENIOR_EXPERT
from annotation.models import ExpertProfile
from core.models import AuditEvent
from tests.conftest import PASSWORD, client_for

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "calm-river-4821"
LINK = re.compile(r'value="(https?://[^"]+/(?:join|reset)/[^"]+)"')


def invite(client, roles=(EXPERT,), specialities="职场心理, 亲密关系", days=7) -> str:
    response = client.post(
        reverse("people-invite"),
        {"roles": list(roles), "specialities": specialities, "days": days, "note": "Dr Wang"},
    )
    assert response.status_code == 200, response.content.decode()
    return LINK.search(response.content.decode()).group(1)


def path_of(link: str) -> str:
    return "/" + link.split("/", 3)[3]


def sign_up(link: str, username="wang", password=NEW_PASSWORD, client=None):
    client = client or Client()
    return client, client.post(
        path_of(link), {"username": username, "password1": password, "password2": password}
    )


def actions() -> list[str]:
    return list(AuditEvent.objects.order_by("pk").values_list("action", flat=True))


def test_a_coordinator_adds_an_expert_without_the_admin(coordinator):
    coord = client_for(coordinator)
    assert coord.get("/admin/").status_code in {302, 403}  # the admin is not theirs
    assert coord.get(reverse("people")).status_code == 200
    link = invite(coord)
    # Only the token's hash is kept; the link itself is nowhere in the database.
    token = link.rstrip("/").rsplit("/", 1)[1]
    invitation = Invitation.objects.get()
    assert invitation.token_hash == token_hash(token) and token not in invitation.token_hash

    invitee, response = sign_up(link)
    assert response.status_code == 302
    user = get_user_model().objects.get(username="wang")
    assert list(user.groups.values_list("name", flat=True)) == [EXPERT]
    assert ExpertProfile.objects.get(user=user).specialities == ["职场心理", "亲密关系"]
    # Signed in at once, and a fresh sign-in with the chosen password works too.
    assert invitee.get(reverse("home"))["Location"] == reverse("review-my-work")
    assert invitee.get(reverse("review-my-work")).status_code == 200
    fresh = Client()
    assert fresh.login(username="wang", password=NEW_PASSWORD)
    assert fresh.get(reverse("review-my-work")).status_code == 200
    assert actions() == ["people.invited", "people.invitation_used"]
    used = AuditEvent.objects.get(action="people.invitation_used")
    assert used.actor == user and used.details["invited_by"] == "coord"


def test_an_invitation_gives_every_role_chosen(coordinator):
    link = invite(client_for(coordinator), roles=[SENIOR_EXPERT, RESEARCHER], specialities="")
    sign_up(link, username="li")
    user = get_user_model().objects.get(username="li")
    assert set(user.groups.values_list("name", flat=True)) == {SENIOR_EXPERT, RESEARCHER}
    assert not ExpertProfile.objects.filter(user=user).exists()


def test_an_invitation_link_works_once(coordinator):
    link = invite(client_for(coordinator))
    sign_up(link)
    _, again = sign_up(link, username="someone-else")
    assert again.status_code == 410
    assert "already been used" in again.content.decode()
    assert Client().get(path_of(link)).status_code == 410
    assert not get_user_model().objects.filter(username="someone-else").exists()


def test_an_expired_link_gives_a_clear_page(coordinator):
    link = invite(client_for(coordinator), days=1)
    Invitation.objects.update(expires=timezone.now() - dt.timedelta(seconds=1))
    response = Client().get(path_of(link))
    assert response.status_code == 410 and "has expired" in response.content.decode()
    _, posted = sign_up(link)
    assert posted.status_code == 410
    assert not get_user_model().objects.filter(username="wang").exists()


def test_a_revoked_link_gives_a_clear_page(coordinator):
    coord = client_for(coordinator)
    link = invite(coord)
    invitation = Invitation.objects.get()
    response = coord.post(reverse("people-invite-revoke", args=[invitation.pk]))
    assert response.status_code == 302
    page = Client().get(path_of(link))
    assert page.status_code == 410 and "withdrawn" in page.content.decode()
    assert actions() == ["people.invited", "people.invitation_revoked"]
    # Revoking twice changes nothing and records nothing.
    coord.post(reverse("people-invite-revoke", args=[invitation.pk]))
    assert actions() == ["people.invited", "people.invitation_revoked"]


@pytest.mark.parametrize("token", ["nope", "x" * 43, "x" * 5000, "%00", "é" * 40])
def test_a_made_up_link_gives_a_clear_page(db, token):
    response = Client(raise_request_exception=False).get(
        reverse("people-join", args=["placeholder"]).replace("placeholder", token)
    )
    # 400: the input checks refuse a NUL in the path before the view.
    assert response.status_code in {400, 404, 410}
    if response.status_code == 410:
        assert "not valid" in response.content.decode()


def test_sign_up_applies_the_password_validators_and_unique_usernames(coordinator, expert):
    link = invite(client_for(coordinator))
    _, weak = sign_up(link, password="123")
    assert weak.status_code == 400
    assert "too short" in weak.content.decode()
    _, taken = sign_up(link, username="EXPERT")
    assert taken.status_code == 400 and "taken" in taken.content.decode()
    _, differ = (
        Client(),
        Client().post(
            path_of(link),
            {"username": "wang", "password1": NEW_PASSWORD, "password2": "other-9931"},
        ),
    )
    assert differ.status_code == 400 and "differ" in differ.content.decode()
    # The refused attempts did not spend the link.
    _, ok = sign_up(link)
    assert ok.status_code == 302


def test_the_invite_form_refuses_bad_input_with_a_message(coordinator):
    coord = client_for(coordinator)
    no_role = coord.post(reverse("people-invite"), {"roles": [], "days": 7})
    assert no_role.status_code == 400
    bad_role = coord.post(reverse("people-invite"), {"roles": ["Superuser"], "days": 7})
    assert bad_role.status_code == 400
    too_long = coord.post(reverse("people-invite"), {"roles": [EXPERT], "days": 365})
    assert too_long.status_code == 400
    assert not Invitation.objects.exists() and not AuditEvent.objects.exists()


def edit(client, user, **values):
    data = {
        "roles": values.get("roles", [EXPERT]),
        "specialities": values.get("specialities", ""),
        "rate": values.get("rate", ""),
    }
    if values.get("is_active", True):
        data["is_active"] = "on"
    return client.post(reverse("people-person", args=[user.pk]), data)


def test_a_coordinator_sets_roles_specialities_and_activation(coordinator, expert):
    coord = client_for(coordinator)
    response = edit(coord, expert, roles=[SENIOR_EXPERT], specialities="职场心理")
    assert response.status_code == 302
    assert list(expert.groups.values_list("name", flat=True)) == [SENIOR_EXPERT]
    assert ExpertProfile.objects.get(user=expert).specialities == ["职场心理"]
    assert actions() == ["people.roles_changed", "people.specialities_changed"]
    roles = AuditEvent.objects.get(action="people.roles_changed")
    assert roles.details == {"user": "expert", "from": [EXPERT], "to": [SENIOR_EXPERT]}
    assert roles.actor == coordinator
    # Saving the same values again records nothing.
    edit(coord, expert, roles=[SENIOR_EXPERT], specialities="职场心理")
    assert len(actions()) == 2


def test_deactivating_ends_the_persons_access(coordinator, expert):
    session = client_for(expert)
    assert session.get(reverse("review-my-work")).status_code == 200
    edit(client_for(coordinator), expert, is_active=False)
    expert.refresh_from_db()
    assert not expert.is_active
    # The open session no longer counts as signed in, and signing in again fails.
    assert session.get(reverse("review-my-work"))["Location"].startswith("/login/")
    assert not Client().login(username="expert", password=PASSWORD)
    assert actions() == ["people.deactivated"]
    edit(client_for(coordinator), expert, is_active=True)
    assert Client().login(username="expert", password=PASSWORD)
    assert actions() == ["people.deactivated", "people.activated"]


def test_a_coordinator_cannot_lock_themselves_out(coordinator):
    coord = client_for(coordinator)
    response = edit(coord, coordinator, roles=[COORDINATOR], is_active=False)
    assert response.status_code == 400 and "your own account" in response.content.decode()
    response = edit(coord, coordinator, roles=[EXPERT])
    assert response.status_code == 400
    coordinator.refresh_from_db()
    assert coordinator.is_active and coordinator.groups.filter(name=COORDINATOR).exists()
    assert not AuditEvent.objects.exists()


def test_administrators_are_out_of_a_coordinators_reach(coordinator):
    admin = get_user_model().objects.create_superuser(username="root", password=PASSWORD)
    coord = client_for(coordinator)
    assert edit(coord, admin, roles=[EXPERT]).status_code == 400
    reset = coord.post(reverse("people-reset-link", args=[admin.pk]))
    assert reset.status_code == 302
    assert not AuditEvent.objects.exists()


@pytest.mark.parametrize("who", ["expert", "researcher", "outsider"])
def test_only_coordinators_manage_people(request, who, expert, coordinator):
    client = client_for(request.getfixturevalue(who))
    target = expert if who != "expert" else coordinator
    assert client.get(reverse("people")).status_code == 403
    assert (
        client.post(reverse("people-invite"), {"roles": [COORDINATOR], "days": 7}).status_code
        == 403
    )
    assert edit(client, target, roles=[COORDINATOR]).status_code == 403
    assert client.post(reverse("people-reset-link", args=[target.pk])).status_code == 403
    assert not Invitation.objects.exists() and not AuditEvent.objects.exists()
    if target == expert:
        assert list(expert.groups.values_list("name", flat=True)) == [EXPERT]


def test_a_password_reset_link_works_once(coordinator, expert):
    coord = client_for(coordinator)
    response = coord.post(reverse("people-reset-link", args=[expert.pk]))
    assert response.status_code == 200
    link = LINK.search(response.content.decode()).group(1)
    assert Client().get(path_of(link)).status_code == 200
    done = Client().post(
        path_of(link), {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302
    assert Client().login(username="expert", password=NEW_PASSWORD)
    again = Client().get(path_of(link))
    assert again.status_code == 410 and "not valid" in again.content.decode()
    assert actions() == ["people.reset_link_created", "people.password_reset"]


def test_a_reset_link_refuses_weak_passwords_and_expires(coordinator, expert, settings):
    coord = client_for(coordinator)
    response = coord.post(reverse("people-reset-link", args=[expert.pk]))
    link = LINK.search(response.content.decode()).group(1)
    weak = Client().post(path_of(link), {"new_password1": "123", "new_password2": "123"})
    assert weak.status_code == 400
    settings.PASSWORD_RESET_TIMEOUT = -1
    assert Client().get(path_of(link)).status_code == 410


@pytest.mark.parametrize("uid,token", [("zz", "abc"), ("MQ", "1-2"), ("!!", "x" * 300)])
def test_a_made_up_reset_link_gives_a_clear_page(db, uid, token):
    response = Client(raise_request_exception=False).get(reverse("people-reset", args=[uid, token]))
    assert response.status_code == 410


def test_the_link_is_not_stored_in_the_session_or_messages(coordinator):
    from django.contrib.sessions.models import Session

    coord = client_for(coordinator)
    link = invite(coord)
    token = link.rstrip("/").rsplit("/", 1)[1]
    for session in Session.objects.all():
        assert token not in str(session.get_decoded())
    assert token not in str(AuditEvent.objects.values_list("details", flat=True))


def test_pages_with_links_have_no_inline_code(coordinator, expert):
    from tests.security.test_content_security_policy import assert_policy, inline_code

    coord = client_for(coordinator)
    invited = coord.post(
        reverse("people-invite"), {"roles": [EXPERT], "specialities": "", "days": 3}
    )
    reset = coord.post(reverse("people-reset-link", args=[expert.pk]))
    join = Client().get(path_of(LINK.search(invited.content.decode()).group(1)))
    for response in (invited, reset, join):
        assert response.status_code == 200
        assert_policy(response)
        assert inline_code(response.content.decode()) == []
    # The copy button's script is a static file; the link field is labelled.
    page = invited.content.decode()
    assert "concord/copy.js" in page and '<label for="invite-link">' in page
    assert "Cache-Control" in invited.headers and "no-store" in invited["Cache-Control"]


def test_deactivating_ends_api_token_access(coordinator, expert):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=expert)
    api = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.get(reverse("api-review-rounds")).status_code == 200
    edit(client_for(coordinator), expert, is_active=False)
    assert api.get(reverse("api-review-rounds")).status_code == 401


def test_the_people_page_lists_accounts_and_links_in_chinese(coordinator, expert):
    coord = client_for(coordinator)
    invite(coord)
    page = coord.get(reverse("people"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    text = page.content.decode()
    assert page.status_code == 200
    assert "expert" in text and "Dr Wang" in text
    assert "邀请" in text  # the page is translated


def test_too_many_or_too_long_specialities_are_refused_with_a_message(coordinator, expert):
    coord = client_for(coordinator)
    many = ", ".join(f"场景{i}" for i in range(21))
    response = coord.post(
        reverse("people-invite"), {"roles": [EXPERT], "specialities": many, "days": 7}
    )
    assert response.status_code == 400 and "At most 20 specialities" in response.content.decode()
    response = edit(coord, expert, specialities="长" * 201)
    assert response.status_code == 400 and "at most 200 characters" in response.content.decode()
    assert not Invitation.objects.exists() and not AuditEvent.objects.exists()


def test_specialities_split_on_chinese_and_latin_separators(coordinator, expert):
    edit(client_for(coordinator), expert, specialities="职场心理，亲密关系、家庭; 职场心理\n焦虑")
    profile = ExpertProfile.objects.get(user=expert)
    assert profile.specialities == ["职场心理", "亲密关系", "家庭", "焦虑"]


def test_the_round_page_links_each_expert_to_their_profile_for_coordinators_only(
    coordinator, researcher, expert
):
    from annotation.models import Benchmark, System
    from annotation.services.benchmark_import import benchmark_import
    from annotation.services.responses_import import responses_import
    from annotation.services.review_rounds import round_open
    from tests.conftest import jsonl_bytes, lines, question

    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="hb")
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": "c1", "response": "嗯"}])),
        benchmark_slug="hb",
        system_name="S",
    )
    round_ = round_open(
        benchmark=Benchmark.objects.get(slug="hb"),
        name="R",
        systems=list(System.objects.all()),
        experts=[expert],
        fraction=1.0,
        raters_per_item=1,
    )
    profile = reverse("people-person", args=[expert.pk])
    url = reverse("review-round", args=[round_.pk])
    assert profile in client_for(coordinator).get(url).content.decode()
    assert profile not in client_for(researcher).get(url).content.decode()
