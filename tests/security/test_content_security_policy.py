"""The Content-Security-Policy: scripts only from the site's own files. Every page of the URL
configuration, as every role that may open it, carries the header and has no inline script
and no inline event handler (which the policy would block, breaking the page)."""

from html.parser import HTMLParser

import pytest
from django.test import Client

from accounts.roles import COORDINATOR
from tests.test_permission_matrix import (
    EXPECTED,
    PERSONAS,
    build_url,
    client_as,
    discovered_routes,
)

# Scripts that hold data, not code: the policy does not apply to them.
DATA_SCRIPT_TYPES = {"application/json", "application/ld+json"}


def directives(header: str) -> dict[str, list[str]]:
    parsed = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            parsed[words[0]] = words[1:]
    return parsed


def assert_policy(response) -> None:
    header = response.headers.get("Content-Security-Policy", "")
    policy = directives(header)
    assert policy.get("script-src") == ["'self'"], header
    assert "'unsafe-inline'" not in policy.get("default-src", []), header
    assert policy.get("object-src") == ["'none'"], header
    assert policy.get("base-uri") == ["'self'"], header
    assert policy.get("frame-ancestors") == ["'none'"], header


class InlineCode(HTMLParser):
    """Collects what a `script-src 'self'` policy would refuse to run."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        for name, value in attrs:
            # onclick=..., and htmx's hx-on (evaluated as code).
            if name.startswith("on") or name.startswith(("hx-on", "data-hx-on")):
                self.found.append(f"<{tag} {name}={value!r}>")
            if name in ("href", "src", "action", "formaction") and (
                value or ""
            ).strip().lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}={value!r}>")
        script_type = (values.get("type") or "").lower()
        if tag == "script" and not values.get("src") and script_type not in DATA_SCRIPT_TYPES:
            self.found.append("<script> with inline code")


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    return parser.found


def test_the_parser_finds_what_the_policy_blocks():
    page = (
        '<select onchange="this.form.submit()"></select><script>alert(1)</script>'
        '<a href="javascript:void(0)">x</a><button hx-on:click="x()">y</button>'
        '<script type="application/json" id="d">{"a": 1}</script><script src="/s.js"></script>'
    )
    assert len(inline_code(page)) == 4


def test_every_page_as_every_role_has_the_policy_and_no_inline_code(world):
    routes, _ = discovered_routes()
    pages = 0
    failures = []
    for route in sorted((r for r in routes if r.name in EXPECTED), key=lambda r: r.name):
        url = build_url(route, world)
        for persona in PERSONAS:
            response = client_as(persona, world).get(url)
            assert response.status_code != 500, (url, persona)
            assert_policy(response)
            if response.status_code != 200:
                continue
            if not response.get("Content-Type", "").startswith("text/html"):
                continue
            if getattr(response, "streaming", False):
                continue
            pages += 1
            for found in inline_code(response.content.decode()):
                failures.append(f"{url} as {persona}: {found}")
    assert pages >= 40
    assert not failures, "\n".join(sorted(set(failures)))


@pytest.mark.parametrize("url", ["/api/docs/", "/login/", "/admin/login/", "/benchmarks/hb/?q=%00"])
def test_the_policy_covers_the_api_docs_admin_and_error_pages(world, url):
    client = Client(raise_request_exception=False)
    client.force_login(world["users"][COORDINATOR])
    response = client.get(url)
    assert_policy(response)
    if response.get("Content-Type", "").startswith("text/html"):
        assert inline_code(response.content.decode()) == [], url
