"""CSRF on every write: each route of the URL configuration, sent a POST, PUT, PATCH or
DELETE by a user allowed to use it but without the CSRF token, is refused with 403 before
the view runs; the same request with the token gets past the check. Pages hand htmx the
token in `hx-headers`, and DRF's session-authenticated API enforces it too."""

import json
import re

import pytest
from django.conf import settings
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory
from django.urls import reverse

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER, SENIOR_EXPERT
from tests.test_permission_matrix import (
    ANONYMOUS,
    CONVERTER,
    EXPECTED,
    NO_ROLE,
    PUBLIC,
    WRITES,
    Route,
    build_url,
    discovered_routes,
)

WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
# Who sends the requests: the first persona the route allows, in this order. The public
# routes (login, logout, health) are tried anonymously: that is who signs in.
PREFERENCE = (COORDINATOR, SENIOR_EXPERT, EXPERT, RESEARCHER, NO_ROLE)
# Routes outside the matrix's walk (it skips admin/ and i18n/) that take writes.
EXTRA = [Route(name="set_language", route="i18n/setlang/"), Route("admin-login", "admin/login/")]


def sender(route: Route, method: str) -> str:
    if route.name not in EXPECTED:
        return ANONYMOUS
    allowed = WRITES.get((route.name, method), EXPECTED[route.name])
    if allowed == PUBLIC:
        return ANONYMOUS
    return next(p for p in PREFERENCE if p in allowed)


def csrf_client(persona: str, world) -> Client:
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    if persona != ANONYMOUS:
        client.force_login(world["users"][persona])
    return client


def with_token(client: Client) -> str:
    """Give the client a CSRF cookie, as a page it loaded would, and return the token."""
    request = RequestFactory().get("/")
    token = get_token(request)
    client.cookies[settings.CSRF_COOKIE_NAME] = request.META["CSRF_COOKIE"]
    return token


def send(client: Client, method: str, url: str, token: str | None = None):
    headers = {"HTTP_X_CSRFTOKEN": token} if token else {}
    if method == "POST":
        return client.post(url, {}, **headers)
    return client.generic(method, url, "{}", content_type="application/json", **headers)


def refused_for_csrf(response) -> bool:
    # Django's middleware answers with its CSRF failure page; DRF with "CSRF Failed: ..."
    # (in `data`: a view rendering HTML, like the Swagger page, does not show it).
    detail = str(getattr(response, "data", None) or "")
    return response.status_code == 403 and (b"CSRF" in response.content or "CSRF" in detail)


def url_for(route: Route, world) -> str:
    """The matrix's URL for the route; a route it does not know yet (its coverage test
    fails for those) gets placeholder ids: the CSRF check comes before any lookup."""
    if route.name in EXPECTED:
        return build_url(route, world)
    return "/" + CONVERTER.sub(lambda m: "1" if m.group("converter") == "int" else "x", route.route)


def write_targets(world) -> list[tuple[Route, str, str, str]]:
    routes, _ = discovered_routes()
    targets = []
    for route in sorted([*routes, *EXTRA], key=lambda r: r.name):
        url = "/" + route.route if route in EXTRA else url_for(route, world)
        targets += [(route, method, url, sender(route, method)) for method in WRITE_METHODS]
    return targets


def test_every_write_without_the_token_is_refused(world):
    targets = write_targets(world)
    failures = []
    for route, method, url, persona in targets:
        response = send(csrf_client(persona, world), method, url)
        if not refused_for_csrf(response):
            failures.append(f"{route.name} {method} {url} as {persona}: {response.status_code}")
    assert not failures, "\n".join(failures)

    # The token is what made the difference: with it, no write is refused for CSRF, and
    # the views that take writes are reached (anything but 405).
    accepted = set()
    for route, method, url, persona in targets:
        client = csrf_client(persona, world)
        response = send(client, method, url, with_token(client))
        if refused_for_csrf(response):
            failures.append(f"{route.name} {method} refused with the token")
        if response.status_code != 405:
            accepted.add((route.name, method))
    assert not failures, "\n".join(failures)
    # Guard against a walk that quietly reaches nothing: known writes of each kind.
    assert {
        ("login", "POST"),
        ("set_language", "POST"),
        ("review-submit", "POST"),
        ("rubric-draft", "POST"),
        ("api-review-submit", "POST"),
        ("api-judge-config-detail", "PATCH"),
        ("api-review-manage-guidelines", "PUT"),
    } <= accepted
    assert len(accepted) >= 40, sorted(accepted)


@pytest.mark.parametrize("persona", [EXPERT, COORDINATOR])
def test_pages_give_htmx_a_working_token(world, persona):
    client = Client(enforce_csrf_checks=True)
    client.force_login(world["users"][persona])
    page = client.get("/", follow=True)
    assert page.status_code == 200
    body = re.search(r"<body[^>]*\shx-headers='([^']*)'", page.content.decode())
    assert body, "the <body> tag has no hx-headers"
    token = json.loads(body.group(1))["X-CSRFToken"]
    assert len(token) == 64  # a masked token, not an empty string

    # An htmx request carrying that header, as htmx sends it, gets past the check.
    values = world["values"]
    if persona == EXPERT:
        url = reverse("review-autosave", args=[values["assignment_id"]])
    else:
        url = reverse("rubric-comment", args=[values["slug"], values["external_id"]])
    response = client.post(url, {}, HTTP_X_CSRFTOKEN=token, HTTP_HX_REQUEST="true")
    assert not refused_for_csrf(response), response.status_code
    response = client.post(url, {}, HTTP_HX_REQUEST="true")
    assert refused_for_csrf(response)
