"""Attacker's finding 25: full-width "ＥＸＰＥＲＴ１" made an account "EXPERT1" beside
"expert1", and "coordinatоr" (with a Cyrillic о) was accepted beside "coordinator". A new
username is compared with the existing ones after Unicode normalisation (NFKC), case-folding
and replacing look-alike letters by the letters they imitate; a clash is refused as taken."""

import pytest

from accounts.invitations import SignUpRefused, invitation_accept, invitation_create
from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from accounts.usernames import username_skeleton


@pytest.fixture
def names(coordinator):
    user_create_with_role(username="expert1", password="x-pass-1234", role=EXPERT)
    user_create_with_role(username="coordinator", password="x-pass-1234", role=EXPERT)
    return coordinator


def _sign_up(by, username: str):
    link = invitation_create(created_by=by, roles=[EXPERT], specialities=[], days=1)
    return invitation_accept(
        token=link.token, username=username, password="long-pass-2468", password2="long-pass-2468"
    )


@pytest.mark.parametrize(
    "username",
    ["ＥＸＰＥＲＴ１", "EXPERT1", "Expert1", "coordinatоr", "cοordinator", "соordinator"],
)
def test_a_look_alike_of_an_existing_username_is_refused(names, username):
    with pytest.raises(SignUpRefused) as refused:
        _sign_up(names, username)
    assert "username" in refused.value.errors
    assert "taken" in " ".join(refused.value.errors["username"])


def test_a_new_username_is_stored_normalised_and_chinese_names_work(names):
    user, _ = _sign_up(names, "ｗａｎｇ２")
    assert user.username == "wang2"
    user, _ = _sign_up(names, "张医生")
    assert user.username == "张医生"
    with pytest.raises(SignUpRefused):
        _sign_up(names, "张医生")
    assert username_skeleton("ＥＸＰＥＲＴ１") == username_skeleton("expert1")
    assert username_skeleton("coordinatоr") == "coordinator"
