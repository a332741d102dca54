"""Who may reach which URL: every route of the URL configuration against every persona.

The routes are discovered from the resolver, not listed by hand: a pattern the expectation
table below does not name fails `test_every_route_is_in_the_expectation_table`, so a new view
cannot ship without someone deciding who may use it.

Outcomes, per persona:
- anonymous: pages redirect to the login page (302 to /login/), API endpoints answer 401;
- a role not in the route's allowed set: 403, or 404 where the access helper hides that the
  object exists (another expert's assignment, a round the user is not in);
- an allowed role: 200, or one of the statuses `NOT_200` lists (with the reason);
- nobody ever gets a 500.

Routes whose view refuses GET with a 405 are requested with POST instead (an empty form);
`WRITES` adds the write method of views that take both a read and a write with different
permissions, so a role that may read cannot quietly write.
"""

import datetime as dt
import re
from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from accounts.models import Invitation
from accounts.roles import COORDINATOR, EXPERT, RESEARCHER, SENIOR_EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, Case, ImportJob, RubricVersion, System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from judging.models import JudgeRun
from judging.services.judgments_import import judgments_import
from leaderboard.exports.services import export_job_run
from leaderboard.models import ExportJob, GateEvaluation, LeaderboardSnapshot
from tests.conftest import PASSWORD, evidence_of, jsonl_bytes, lines, question

ANONYMOUS = "anonymous"
NO_ROLE = "no role"
PERSONAS = (ANONYMOUS, EXPERT, SENIOR_EXPERT, COORDINATOR, RESEARCHER, NO_ROLE)

# Everyone, signed in or not.
PUBLIC = frozenset(PERSONAS)
# Every signed-in user, with or without a role.
SIGNED_IN = frozenset({EXPERT, SENIOR_EXPERT, COORDINATOR, RESEARCHER, NO_ROLE})
# The read permissions (`_READ` in accounts/roles.py): benchmarks, cases, responses with
# their systems, judge runs. Experts work blind and never have them.
READERS = frozenset({COORDINATOR, RESEARCHER})
# Rubric pages: anyone who may comment on (read) or author a rubric.
RUBRIC_READERS = frozenset({EXPERT, SENIOR_EXPERT, COORDINATOR})
RUBRIC_AUTHORS = frozenset({SENIOR_EXPERT, COORDINATOR})
ANNOTATORS = frozenset({EXPERT, SENIOR_EXPERT})
# The assignment and the round of the test belong to the Expert persona only.
ASSIGNEE = frozenset({EXPERT})
CONSENSUS = frozenset({COORDINATOR, RESEARCHER})
ADJUDICATORS = frozenset({SENIOR_EXPERT, COORDINATOR})
MANAGERS = frozenset({COORDINATOR})

# URL name -> personas that may use it. Everyone else must be refused.
EXPECTED: dict[str, frozenset[str]] = {
    # accounts
    "home": SIGNED_IN,
    # help: the guides and the product's documents, for every signed-in user
    "help": SIGNED_IN,
    "help-page": SIGNED_IN,
    "api-version": SIGNED_IN,
    "login": PUBLIC,
    "healthz": PUBLIC,  # load balancer probe: database and broker state, no data
    "logout": PUBLIC,
    # annotation: benchmarks and rubrics
    "benchmark-list": READERS,
    "benchmark-detail": READERS,
    "rubric-overview": READERS,
    "rubric-export": READERS,
    "case-detail": READERS,
    "rubric-editor": RUBRIC_READERS,
    "rubric-draft": RUBRIC_AUTHORS,
    "rubric-publish": RUBRIC_AUTHORS,
    "rubric-rebase": RUBRIC_AUTHORS,
    "rubric-discard": RUBRIC_AUTHORS,
    "rubric-comment": RUBRIC_READERS,
    "rubric-history": RUBRIC_READERS,
    "rubric-restore": RUBRIC_AUTHORS,
    "audit-log": MANAGERS,
    "gate-policy": MANAGERS,
    "audit-export": MANAGERS,
    # annotation: blind review, expert side
    "review-my-work": ANNOTATORS,
    "review-next": ASSIGNEE,
    "review-annotate": ASSIGNEE,
    "review-autosave": ASSIGNEE,
    "review-submit": ASSIGNEE,
    "review-flag": ASSIGNEE,
    "review-skip": ASSIGNEE,
    "review-my-submitted": ASSIGNEE,
    # The thread on a split item: its raters and the coordinators, once the round is closed.
    "review-discussion": frozenset({EXPERT, COORDINATOR}),
    # The experts' guidelines page (examples, FAQ): a round's raters and the coordinators.
    "review-guidance": frozenset({EXPERT, COORDINATOR}),
    # annotation: blind review, coordinator side
    "review-rounds": CONSENSUS,
    "review-round-new": MANAGERS,
    "review-round-new-uncertain": MANAGERS,
    "review-round": CONSENSUS,
    "review-consensus": CONSENSUS,
    "review-piece-rate": MANAGERS,
    "review-round-action": MANAGERS,
    "review-round-close": MANAGERS,
    "review-adjudication": ADJUDICATORS,
    "review-adjudicate": ADJUDICATORS,
    "review-references": MANAGERS,
    "review-guidelines": MANAGERS,
    "review-faq": MANAGERS,
    "review-examples": MANAGERS,
    # annotation: people (accounts.manage_people); the links' pages are public
    "people": MANAGERS,
    "people-invite": MANAGERS,
    "people-invite-revoke": MANAGERS,
    "people-person": MANAGERS,
    "people-reset-link": MANAGERS,
    "people-round-rate": MANAGERS,
    "people-pool-add": MANAGERS,
    "people-pool-remove": MANAGERS,
    "people-join": PUBLIC,
    "people-reset": PUBLIC,
    # annotation: imports
    "import": MANAGERS,
    "import-benchmark": MANAGERS,
    "import-responses": MANAGERS,
    "import-job": MANAGERS,
    # judging
    "judge-runs": READERS,
    "judge-run-new": MANAGERS,
    "judge-run": READERS,
    "judge-run-control": MANAGERS,
    "rubric-health": CONSENSUS,
    "rubric-health-versions": CONSENSUS,
    # It shows the judge's verdicts beside the rubric editor: coordinators only (the
    # researchers may not edit rubrics; the experts work blind).
    "rubric-clarify": MANAGERS,
    "rubric-saturated": READERS,
    "judge-config-new": MANAGERS,
    "prompt-upload": MANAGERS,
    "judge-config": READERS,
    "judge-config-edit": MANAGERS,
    # few-shot examples from a round's calibration part make a new judge version
    "judge-fewshot": MANAGERS,
    # leaderboard (a researcher may record a gate evaluation, never publish)
    "agreement": CONSENSUS,
    "judge-selection": CONSENSUS,
    "judge-panel": CONSENSUS,
    "agreement-methods": CONSENSUS,
    "gate-record": CONSENSUS,
    "disagreements": CONSENSUS,
    "disagreement-case": CONSENSUS,
    "round-sequential": CONSENSUS,
    "round-plan": MANAGERS,
    "leaderboard": READERS,
    "leaderboard-publish": MANAGERS,
    "leaderboard-snapshot": READERS,
    "leaderboard-bundle": CONSENSUS,
    "leaderboard-corrected": CONSENSUS,
    # a judge version's drift on the anchors: read as boards are; anchors made as a gate is
    "judge-drift": READERS,
    "judge-drift-anchors": CONSENSUS,
    "api-judge-drift": READERS,
    "signing-key": PUBLIC,  # the public keys that sign bundles: for anyone checking one
    # research downloads (leaderboard.export_data)
    "exports": CONSENSUS,
    "export-download": CONSENSUS,
    "export-jobs": CONSENSUS,
    "export-job-new": CONSENSUS,
    "export-job-download": CONSENSUS,
    "export-healthbench-meta": CONSENSUS,
    "agreement-pdf": CONSENSUS,
    # API: schema and Swagger UI, for the roles that use the API
    "api-schema": READERS,
    "api-docs": READERS,
    # API: benchmarks, cases, rubrics
    "api-benchmark-list": READERS,
    "api-benchmark-detail": READERS,
    "api-benchmark-import": MANAGERS,
    "api-case-list": READERS,
    "api-case-detail": READERS,
    "api-rubric-version-list": READERS,
    "api-rubric-version-diff": READERS,
    "api-rubric-export": READERS,
    "api-rubric-version-detail": READERS,
    "api-response-list": READERS,
    "api-responses-import": MANAGERS,
    "api-system-list": READERS,
    "api-import-job-list": MANAGERS,
    "api-import-job-detail": MANAGERS,
    # API: blind review, expert side
    "api-review-rounds": ANNOTATORS,
    "api-review-next": ASSIGNEE,
    "api-review-assignment": ASSIGNEE,
    "api-review-autosave": ASSIGNEE,
    "api-review-submit": ASSIGNEE,
    "api-review-flag": ASSIGNEE,
    # API: blind review, coordinator side
    "api-review-manage-rounds": MANAGERS,
    "api-review-manage-round-uncertain": MANAGERS,
    "api-review-manage-round": MANAGERS,
    "api-review-manage-round-extend": MANAGERS,
    "api-review-manage-round-status": MANAGERS,
    "api-review-manage-round-consensus": CONSENSUS,
    "api-review-manage-reassign": MANAGERS,
    "api-review-manage-guidelines": MANAGERS,
    "api-review-manage-references": MANAGERS,
    "api-review-manage-adjudicate": ADJUDICATORS,
    # API: judging
    "api-prompt-list": READERS,
    "api-judge-config-list": READERS,
    "api-judge-config-detail": READERS,
    "api-judge-run-list": READERS,
    "api-judge-run-detail": READERS,
    "api-judge-run-control": MANAGERS,
    # API: agreement and leaderboard
    "api-agreement": CONSENSUS,
    "api-leaderboard": READERS,
    "api-leaderboard-corrected": CONSENSUS,
    "api-compare-runs": CONSENSUS,
    "api-judge-selection": CONSENSUS,
    "api-judge-panel": CONSENSUS,
    "api-gate-evaluations": CONSENSUS,
    "api-leaderboards": READERS,
    "api-leaderboard-bundle": CONSENSUS,
    "api-signing-key": PUBLIC,
    # API: export jobs (leaderboard.export_data)
    "api-export-job-list": CONSENSUS,
    "api-export-job-detail": CONSENSUS,
    "api-export-job-file": CONSENSUS,
}

# Refused roles that get 404 instead of 403: the view fetches through a helper that only
# finds the user's own object, so a stranger cannot even learn that it exists. The Senior
# expert annotates too but is not in the test's round and owns none of its assignments.
HIDDEN: dict[str, frozenset[str]] = {
    name: frozenset({SENIOR_EXPERT})
    for name in (
        "review-next",  # get_object_or_404(ReviewRound, experts=request.user)
        "review-annotate",  # assignment_get_for_expert
        "review-autosave",
        "review-submit",
        "review-flag",
        "review-skip",
        "review-my-submitted",  # rounds the user is in (pool or own work) only
        "review-discussion",  # item_discussion_get: the item's raters and coordinators only
        "review-guidance",  # guidance_round_get: rounds the user rates in only
        "api-review-next",
        "api-review-assignment",
        "api-review-autosave",
        "api-review-submit",
        "api-review-flag",
    )
}

# Extra write requests on views that also answer GET, where the write needs another
# permission than the read: (URL name, method) -> personas that may write.
WRITES: dict[tuple[str, str], frozenset[str]] = {
    ("api-rubric-version-list", "POST"): RUBRIC_AUTHORS,
    ("api-judge-config-list", "POST"): MANAGERS,
    ("api-judge-config-detail", "PATCH"): MANAGERS,
    ("api-judge-config-detail", "PUT"): MANAGERS,
    ("api-judge-run-list", "POST"): MANAGERS,
    ("api-export-job-list", "POST"): CONSENSUS,
    ("api-gate-evaluations", "POST"): CONSENSUS,
    ("api-leaderboards", "POST"): MANAGERS,
    ("api-review-manage-rounds", "POST"): MANAGERS,
    ("api-review-manage-guidelines", "PUT"): MANAGERS,
    ("review-round-new", "POST"): MANAGERS,
    ("review-round-new-uncertain", "POST"): MANAGERS,
    ("people-person", "POST"): MANAGERS,
    ("review-guidelines", "POST"): MANAGERS,
    ("review-references", "POST"): MANAGERS,
    ("review-adjudicate", "POST"): ADJUDICATORS,
    ("judge-run-new", "POST"): MANAGERS,
    ("judge-config-new", "POST"): MANAGERS,
    ("prompt-upload", "POST"): MANAGERS,
    ("judge-config-edit", "POST"): MANAGERS,
    ("review-round-close", "POST"): MANAGERS,
    ("review-discussion", "POST"): frozenset({EXPERT, COORDINATOR}),
    ("review-faq", "POST"): MANAGERS,
    ("review-examples", "POST"): MANAGERS,
    ("rubric-clarify", "POST"): MANAGERS,
}

# Statuses other than 200 that an allowed persona may get, and why (200 is always fine).
# The requests carry no form data, so writes mostly answer with invalid input (400/422) or
# do nothing and redirect (302).
NOT_200: dict[str, tuple[set[int], str]] = {
    "home": ({302}, "a role is redirected to its work; only a user without one sees a page"),
    "help": ({302}, "a role is sent to its own guide; a user without one sees the list"),
    "login": ({302}, "redirect_authenticated_user sends signed-in users home"),
    "logout": ({302}, "POST-only; redirects to the login page"),
    "healthz": ({503}, "the probe's honest answer when the broker is unreachable"),
    "rubric-draft": ({302}, "a request without htmx is sent back to the editor"),
    "rubric-publish": ({422}, "an empty rubric: the editor again, with the errors"),
    "rubric-rebase": ({302}, "no draft of one's own: back to the editor"),
    "rubric-discard": ({302}, "no draft of one's own: back to the editor"),
    "rubric-comment": ({302}, "an empty comment: back to the editor with a message"),
    "rubric-restore": ({302}, "restoring version 1: back to the history page"),
    "rubric-clarify": ({400}, "no criterion named: the message asks for one"),
    "review-next": ({302}, "redirects to the assignment it hands out"),
    "api-compare-runs": ({400}, "the world has one judge run: comparing it needs a second"),
    "api-judge-panel": ({400}, "no judge named: the panel tests a named judge"),
    "export-healthbench-meta": ({400}, "no votes submitted yet: nothing to export, and it says so"),
    "review-submit": ({422}, "no votes: the annotation page again, with the error"),
    "review-discussion": ({404}, "the round is open: no thread exists until it closes"),
    "review-flag": ({302}, "back to the annotation page with a message"),
    "review-skip": ({302}, "no reason given: back to the annotation page with a message"),
    "review-round-action": ({302}, "'open' on an open round, then back to the round page"),
    "review-guidelines": ({302}, "POST: saved, back to the round pages"),
    "review-round-close": ({400}, "POST without the confirmation box: the page again"),
    "round-plan": ({400}, "no benchmark or agreement given: the panel says what is missing"),
    "review-faq": ({400}, "POST: an empty entry, the form with its errors"),
    "review-examples": ({400}, "POST: an empty example, the form with its errors"),
    "review-adjudicate": ({302}, "POST: an empty decision, back with a message"),
    "people-invite": ({400}, "no role chosen: the form with errors"),
    "people-invite-revoke": ({302}, "back to the people page with a message"),
    "people-person": ({302}, "POST: an empty form (no roles, inactive) is saved"),
    "people-reset-link": ({302}, "the account was deactivated just before: back with a message"),
    "people-round-rate": ({302}, "back to the round page"),
    "people-pool-add": ({302}, "no expert chosen: back to the round page with a message"),
    "people-pool-remove": ({302}, "not in the pool: back to the round page with a message"),
    "people-join": ({410}, "a made-up invitation token: the page saying the link is not valid"),
    "people-reset": ({410}, "a made-up reset token: the page saying the link is not valid"),
    "import-benchmark": ({400}, "GET: no file uploaded, the form with errors"),
    "import-responses": ({400}, "GET: no file uploaded, the form with errors"),
    "judge-run-control": ({302}, "pause a finished run: back to the run page"),
    "gate-record": ({302}, "the round and run are posted; redirect to the agreement page"),
    "judge-drift-anchors": ({302}, "an empty form: back to the drift page with a message"),
    "leaderboard-publish": ({302}, "redirect to the snapshot, or back with a message"),
    "export-job-new": ({302}, "an empty request: back to the exports page with the message"),
    "api-benchmark-import": ({400}, "no file uploaded"),
    "api-responses-import": ({400}, "no file uploaded"),
    "api-rubric-version-list": ({400}, "POST: an empty rubric is invalid"),
    "api-rubric-version-diff": ({400}, "the two version numbers are missing"),
    "api-review-autosave": ({400}, "no votes"),
    "api-review-submit": ({400}, "no votes"),
    "api-review-flag": ({400}, "a flag needs a reason"),
    "api-review-manage-rounds": ({400}, "POST: an empty round definition"),
    "api-review-manage-round-uncertain": ({400}, "an empty round definition"),
    "api-review-manage-round-extend": ({400}, "no fraction given"),
    "api-review-manage-round-status": ({400}, "no status given"),
    "api-review-manage-reassign": ({400}, "no expert given"),
    "api-review-manage-guidelines": ({400}, "PUT: no guideline text"),
    "api-review-manage-references": ({400}, "no references given"),
    "api-judge-config-list": ({400}, "POST: an empty configuration"),
    "api-judge-config-detail": ({400}, "PUT: an empty configuration (PATCH of nothing is 200)"),
    "api-judge-run-list": ({400}, "POST: no benchmark, systems or config"),
    "api-export-job-list": ({400}, "POST: no kind or format"),
    "api-gate-evaluations": ({400}, "POST: no round given"),
    "api-leaderboards": ({201, 409}, "POST: the newest judge's board, published or refused"),
}

# Patterns left out, with the reason.
SKIPPED_PREFIXES = {
    "admin/": "Django's admin: staff-only, guarded by Django itself, not by the project roles",
    "i18n/": "Django's set_language: public by design (switching the interface language)",
    "static/": "static files served in development: assets, not views",
    "media/": "uploaded files served in development: assets, not views",
    "__debug__/": "debug toolbar: development only",
}

API_PREFIX = "api/"
CONVERTER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")


@dataclass(frozen=True)
class Route:
    name: str
    route: str  # e.g. "benchmarks/<slug:slug>/"

    @property
    def is_api(self) -> bool:
        return self.route.startswith(API_PREFIX)


def _walk(patterns, prefix: str = ""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry.name


def discovered_routes() -> tuple[list[Route], list[str]]:
    """Every pattern of the URL configuration: (routes to check, routes skipped)."""
    routes, skipped = [], []
    for route, name in _walk(get_resolver().url_patterns):
        if any(route.startswith(p) or route.startswith("^" + p) for p in SKIPPED_PREFIXES):
            skipped.append(route)
        else:
            routes.append(Route(name=name, route=route))
    return routes, skipped


def test_every_route_is_in_the_expectation_table():
    routes, _ = discovered_routes()
    names = [r.name for r in routes]
    unnamed = [r.route for r in routes if not r.name]
    assert not unnamed, f"routes without a name cannot be in the table: {unnamed}"
    duplicates = sorted({n for n in names if names.count(n) > 1})
    assert not duplicates, f"URL names used twice: {duplicates}"
    missing = sorted(set(names) - set(EXPECTED))
    assert not missing, f"new routes: add them to EXPECTED with the roles allowed: {missing}"
    stale = sorted(set(EXPECTED) - set(names))
    assert not stale, f"EXPECTED names routes that no longer exist: {stale}"
    for table in (HIDDEN, NOT_200):
        assert set(table) <= set(EXPECTED)
    assert {name for name, _ in WRITES} <= set(EXPECTED)
    for name, hidden in HIDDEN.items():
        assert not hidden & EXPECTED[name], f"{name}: a role cannot be allowed and hidden"


# --- the data the routes point at ---------------------------------------------------------


@pytest.fixture
def world(db, settings, tmp_path):
    """The benchmark "hb" with ten cases and two systems' answers, a review round with an
    assignment of the Expert persona, an imported judge run, and a published snapshot."""
    users = {
        EXPERT: user_create_with_role(username="m-expert", password=PASSWORD, role=EXPERT),
        SENIOR_EXPERT: user_create_with_role(
            username="m-senior", password=PASSWORD, role=SENIOR_EXPERT
        ),
        COORDINATOR: user_create_with_role(username="m-coord", password=PASSWORD, role=COORDINATOR),
        RESEARCHER: user_create_with_role(
            username="m-research", password=PASSWORD, role=RESEARCHER
        ),
        NO_ROLE: get_user_model().objects.create_user(username="m-norole", password=PASSWORD),
    }
    other_expert = user_create_with_role(username="m-other", password=PASSWORD, role=EXPERT)

    rows = [question(f"c{i:02d}", difficulty="hard" if i % 3 == 0 else "normal") for i in range(10)]
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb")
    for name in ("Alpha", "Beta"):
        answers = [{"question_id": f"c{i:02d}", "response": f"{name} {i}"} for i in range(10)]
        responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="hb", system_name=name)
    benchmark = Benchmark.objects.get(slug="hb")
    systems = list(System.objects.order_by("name"))

    round_ = round_open(
        benchmark=benchmark,
        name="matrix",
        systems=systems,
        experts=[users[EXPERT], other_expert],
        fraction=0.5,
        raters_per_item=2,
    )
    assignment = assignment_next(expert=users[EXPERT], round_=round_)
    others = assignment_next(expert=other_expert, round_=round_)
    assert assignment is not None and others is not None

    verdicts = [
        {"question_id": f"c{i:02d}", "score_detail": [1, 0, 1, 0], "score_reason": "r"}
        for i in range(10)
    ]
    summary = judgments_import(
        chunks=lines(jsonl_bytes(verdicts)),
        benchmark_slug="hb",
        system_name="Alpha",
        judge_name="matrix-judge",
    )
    run = JudgeRun.objects.get(pk=summary.run)
    gate = GateEvaluation.objects.create(
        benchmark=benchmark,
        round=round_,
        run=run,
        judge_version=run.judge_version,
        threshold=0.8,
        rule="point",
        passed=True,
        units=0,
        report=evidence_of(round_, run).report.as_json(),
        evaluated_by=users[COORDINATOR],
    )
    snapshot = LeaderboardSnapshot.objects.create(
        benchmark=benchmark,
        judge_version=run.judge_version,
        gate=gate,
        profile="heartbench",
        rows=[],
        published_by=users[COORDINATOR],
    )
    snapshot.runs.set([run])
    settings.EXPORT_ROOT = tmp_path / "exports"
    job = ExportJob.objects.create(benchmark=benchmark, kind="votes", format="csv", round=round_)
    assert export_job_run(job_id=job.pk) == "done"
    import_job = ImportJob.objects.create(
        kind=ImportJob.Kind.BENCHMARK,
        benchmark_slug=benchmark.slug,
        filename="questions.jsonl",
        size=100,
        status=ImportJob.Status.DONE,
        summary={"cases": 10},
        requested_by=users[COORDINATOR],
    )
    invitation = Invitation.objects.create(
        token_hash="0" * 64,
        roles=[EXPERT],
        created_by=users[COORDINATOR],
        expires=timezone.now() + dt.timedelta(days=1),
    )
    case = Case.objects.get(
        benchmark=benchmark, external_id=assignment.item.response.case.external_id
    )
    assert RubricVersion.objects.filter(case=case, number=1).exists()
    values = {
        "slug": benchmark.slug,
        "external_id": case.external_id,
        "number": 1,
        "round_id": round_.pk,
        "assignment_id": assignment.pk,
        "item_id": assignment.item_id,
        "response_id": assignment.item.response_id,
        "run_id": run.pk,
        "pk": run.judge_version.config_id,
        "config_id": run.judge_version.config_id,
        "version_id": run.judge_version_id,
        "snapshot_id": snapshot.pk,
        "job_id": job.pk,
        "import_job_id": import_job.pk,
        "invitation_id": invitation.pk,
        # Someone outside the personas, so the people pages' writes change no persona.
        "user_id": user_create_with_role(username="m-target", password=PASSWORD, role=EXPERT).pk,
        "token": "not-a-real-invitation-token",
        "uidb64": "MQ",
        "kind": "tidy",
        "fmt": "csv",
        "name": "researcher",
    }
    # Converters named `action`: a real action, one that leaves the data usable.
    actions = {
        "review-round-action": "open",
        "judge-run-control": "pause",
        "api-judge-run-control": "pause",
    }
    return {
        "users": users,
        "values": values,
        "actions": actions,
        "round": round_,
        "other_assignment": others,
        "run": run,
    }


def build_url(route: Route, world) -> str:
    def fill(match: re.Match) -> str:
        name = match.group("name")
        if name == "action":
            return world["actions"][route.name]
        assert name in world["values"], f"{route.route}: no test object for <{name}>"
        return str(world["values"][name])

    return "/" + CONVERTER.sub(fill, route.route)


def client_as(persona: str, world) -> Client:
    # Errors become 500 responses here instead of exceptions, so every persona is checked.
    client = Client(raise_request_exception=False)
    if persona != ANONYMOUS:
        client.force_login(world["users"][persona])
    return client


POST_DATA = {
    # Views that read ids from the form: give them the test's objects so the request
    # reaches the code past the id lookup.
    "gate-record": lambda w: {"round": w["round"].pk, "run": w["run"].pk},
    "leaderboard-publish": lambda w: {"run": w["run"].pk, "confirm": "yes"},
}


GET_DATA = {
    # These need a round and/or a run in the query: without them they answer 400 before
    # doing any work.
    "export-download": lambda w: {"round": w["round"].pk, "run": w["run"].pk},
    "api-agreement": lambda w: {"round": w["round"].pk, "run": w["run"].pk},
    "agreement-pdf": lambda w: {"round": w["round"].pk, "run": w["run"].pk},
    "agreement-methods": lambda w: {"round": w["round"].pk, "run": w["run"].pk},
    "disagreement-case": lambda w: {"round": w["round"].pk, "run": w["run"].pk},
    "api-leaderboard": lambda w: {"run": w["run"].pk},
    "leaderboard-corrected": lambda w: {"run": w["run"].pk, "round": w["round"].pk},
    "api-leaderboard-corrected": lambda w: {"run": w["run"].pk, "round": w["round"].pk},
}


def send(client: Client, method: str, url: str, name: str, world):
    if method == "GET":
        return client.get(url, GET_DATA.get(name, lambda w: {})(world))
    if method == "POST":
        data = POST_DATA.get(name, lambda w: {})(world)
        return client.post(url, data)
    return client.generic(method, url, "{}", content_type="application/json")


def check(route: Route, method: str, allowed: frozenset, persona: str, response) -> str | None:
    """None if the response is what the table expects, else the complaint."""
    status = response.status_code
    if status == 500 or (status > 500 and status not in NOT_200.get(route.name, (set(),))[0]):
        error = getattr(response, "exc_info", None)
        cause = repr(error[1]) if error else ""
        return f"server error {status} {cause}"
    if persona in allowed:
        statuses = NOT_200.get(route.name, (set(), ""))[0] | {200}
        if status in {401, 403} or status not in statuses:
            return f"allowed, expected one of {sorted(statuses)}, got {status}"
        return None
    if persona == ANONYMOUS:
        if route.is_api:
            return None if status == 401 else f"anonymous API call: expected 401, got {status}"
        location = response.headers.get("Location", "")
        if status == 302 and location.startswith("/login/"):
            return None
        return f"anonymous page: expected 302 to /login/, got {status} {location}"
    expected = 404 if persona in HIDDEN.get(route.name, ()) else 403
    return None if status == expected else f"refused: expected {expected}, got {status}"


def primary_method(route: Route, url: str, world) -> str:
    """GET, unless the view answers GET with 405 (asked as a superuser, who passes every
    permission check that comes before the method check)."""
    admin = get_user_model().objects.filter(username="m-probe").first()
    if admin is None:
        admin = get_user_model().objects.create_superuser(username="m-probe", password="x")
    client = Client(raise_request_exception=False)
    client.force_login(admin)
    return "POST" if client.get(url).status_code == 405 else "GET"


def test_every_route_answers_each_persona_as_the_table_says(world):
    routes, _ = discovered_routes()
    failures = []
    checks = []
    # A route missing from the table fails the coverage test above; here it is left out.
    for route in sorted((r for r in routes if r.name in EXPECTED), key=lambda r: r.name):
        url = build_url(route, world)
        checks.append((route, primary_method(route, url, world), url, EXPECTED[route.name]))
        for (name, method), allowed in WRITES.items():
            if name == route.name:
                checks.append((route, method, url, allowed))
    for route, method, url, allowed in checks:
        for persona in PERSONAS:
            response = send(client_as(persona, world), method, url, route.name, world)
            problem = check(route, method, allowed, persona, response)
            if problem:
                failures.append(f"{route.name:34} {method:5} {url} as {persona}: {problem}")
    assert not failures, "\n" + "\n".join(failures)


def test_an_expert_cannot_reach_another_experts_assignment(world):
    """Changing the id in the URL finds nothing: 404, not the other expert's work."""
    other = world["other_assignment"].pk
    client = client_as(EXPERT, world)
    names = {
        "review-annotate": "GET",
        "review-autosave": "POST",
        "review-submit": "POST",
        "review-flag": "POST",
        "api-review-assignment": "GET",
        "api-review-autosave": "POST",
        "api-review-submit": "POST",
        "api-review-flag": "POST",
    }
    urls = [(method, reverse(name, args=[other])) for name, method in names.items()]
    got = {url: send(client, method, url, "", world).status_code for method, url in urls}
    assert got == {url: 404 for _, url in urls}
