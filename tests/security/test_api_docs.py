"""The API's schema and documentation are for the roles that use the API (coordinators and
researchers): experts work in the browser, and a user without a role reads nothing."""

import pytest
from django.urls import reverse

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER, SENIOR_EXPERT
from accounts.services import user_create_with_role
from tests.conftest import PASSWORD, client_for

pytestmark = pytest.mark.django_db

READERS = {COORDINATOR, RESEARCHER}


@pytest.mark.parametrize("role", [EXPERT, SENIOR_EXPERT, COORDINATOR, RESEARCHER, None])
def test_schema_docs_and_their_link_are_for_the_roles_that_use_the_api(role, django_user_model):
    if role is None:
        user = django_user_model.objects.create_user(username="nobody", password=PASSWORD)
    else:
        user = user_create_with_role(username="someone", password=PASSWORD, role=role)
    client = client_for(user)
    allowed = role in READERS
    schema = client.get(reverse("api-schema"), {"format": "json"})
    docs = client.get(reverse("api-docs"))
    assert schema.status_code == (200 if allowed else 403)
    assert docs.status_code == (200 if allowed else 403)
    home = client.get(reverse("home"), follow=True).content.decode()
    assert (f'href="{reverse("api-docs")}"' in home) is allowed


def test_anonymous_users_get_401_from_the_schema():
    assert client_for(None).get(reverse("api-schema")).status_code == 401
