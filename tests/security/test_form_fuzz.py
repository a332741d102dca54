"""Every form of every page, as every role that sees it, sent with a hostile value in each
of its fields in turn (a NUL character, a lone surrogate's bytes, 5,000 characters, JSON
brackets nested 100,000 deep): the answer is never a server error.

The forms are found by reading the pages the way a browser would (method, action, and
every input, select and textarea with its current value), so a new form is fuzzed as
soon as a page shows it."""

from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from hypothesis import given

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER, SENIOR_EXPERT
from tests.security.hostile import KINDS, hostile, repeatable, url_encoded
from tests.test_permission_matrix import EXPECTED, build_url, client_as, discovered_routes

# PostgreSQL refuses values SQLite stores (a NUL byte in text), so that is where hostile
# input could turn into a server error: the fuzzers run in the PostgreSQL stage of CI.
pytestmark = pytest.mark.fuzz

# Forms whose submission ends the fuzzing session itself.
LEFT_OUT_ACTIONS = ("/logout/",)


@dataclass
class Form:
    page: str
    method: str
    action: str
    fields: list[tuple[str, str]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple:
        return (self.method, urlsplit(self.action).path, tuple(n for n, _ in self.fields))


class FormReader(HTMLParser):
    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page
        self.forms: list[Form] = []
        self.current: Form | None = None
        self.select: str | None = None
        self.textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            method = (a.get("method") or "get").upper()
            action = urljoin(self.page, a.get("action") or a.get("hx-post") or self.page)
            self.current = Form(self.page, method, action)
            self.forms.append(self.current)
        elif self.current is None or not a.get("name"):
            return
        elif tag == "input":
            kind = (a.get("type") or "text").lower()
            if kind == "file":
                self.current.files.append(a["name"])
            elif kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.current.fields.append((a["name"], a.get("value") or "on"))
            elif kind not in ("submit", "button", "image", "reset"):
                self.current.fields.append((a["name"], a.get("value") or ""))
        elif tag == "select":
            self.select = a["name"]
            self.current.fields.append((a["name"], ""))
        elif tag == "option" and self.select and ("selected" in a or self._unset(self.select)):
            self._set(self.select, a.get("value") or "")
        elif tag == "textarea":
            self.textarea = a["name"]
            self.current.fields.append((a["name"], ""))

    def handle_data(self, data):
        if self.textarea and self.current:
            self._set(self.textarea, data)

    def handle_endtag(self, tag):
        if tag == "form":
            self.current = None
        elif tag == "select":
            self.select = None
        elif tag == "textarea":
            self.textarea = None

    def _unset(self, name: str) -> bool:
        return any(n == name and v == "" for n, v in self.current.fields)

    def _set(self, name: str, value: str) -> None:
        for i in range(len(self.current.fields) - 1, -1, -1):
            if self.current.fields[i][0] == name:
                self.current.fields[i] = (name, value)
                return


def forms_of(client, world) -> list[Form]:
    """The distinct forms on every page the client's user may open."""
    routes, _ = discovered_routes()
    found: dict[tuple, Form] = {}
    for route in sorted((r for r in routes if r.name in EXPECTED), key=lambda r: r.name):
        if route.is_api:
            continue
        url = build_url(route, world)
        response = client.get(url)
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        if getattr(response, "streaming", False):
            continue
        reader = FormReader(url)
        reader.feed(response.content.decode())
        for form in reader.forms:
            if urlsplit(form.action).path not in LEFT_OUT_ACTIONS:
                found.setdefault(form.key, form)
    return list(found.values())


def submit(client, form: Form, fields: list[tuple[str, str]]):
    body = "&".join(f"{url_encoded(n)}={url_encoded(v)}" for n, v in fields)
    path = urlsplit(form.action).path
    if form.method == "GET":
        return client.get(f"{path}?{body}")
    return client.generic(
        "POST", path, body.encode("ascii"), content_type="application/x-www-form-urlencoded"
    )


def fuzz_field(client, form: Form, index: int, kind: str, failures: list) -> None:
    @repeatable(2)
    @given(value=hostile(kind))
    def run(value):
        fields = list(form.fields)
        name = fields[index][0]
        fields[index] = (name, value)
        response = submit(client, form, fields)
        if response.status_code >= 500:
            error = getattr(response, "exc_info", None)
            failures.append(
                f"{form.method} {form.action} (on {form.page}) field {name!r} {kind}: "
                f"{response.status_code} {repr(error[1])[:300] if error else ''}"
            )

    run()


@pytest.mark.parametrize("persona", [COORDINATOR, EXPERT, SENIOR_EXPERT, RESEARCHER])
def test_hostile_values_in_every_form_field_never_cause_a_server_error(world, persona):
    client = client_as(persona, world)
    forms = forms_of(client, world)
    assert forms, persona
    failures: list[str] = []
    fields = 0
    for form in forms:
        for index, (name, _value) in enumerate(form.fields):
            if name == "csrfmiddlewaretoken":
                continue
            fields += 1
            for kind in KINDS:
                fuzz_field(client, form, index, kind, failures)
    assert fields >= 5, persona
    assert not failures, f"{len(failures)} server errors:\n" + "\n".join(failures)


def test_the_fuzzer_reads_the_forms_of_the_pages(world):
    forms = forms_of(client_as(COORDINATOR, world), world)
    actions = {urlsplit(f.action).path for f in forms}
    assert "/import/benchmark/" in actions and "/i18n/setlang/" in actions
    search = next(f for f in forms if f.method == "GET" and ("q", "") in f.fields)
    assert search.page.startswith("/benchmarks/")
