import json
import os
import socket
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.apps import apps
from django.db import transaction
from django.test import Client
from django.utils import translation

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER
from accounts.services import user_create_with_role
from tests import quick_reset

PASSWORD = "test-pass-123"


def jsonl_bytes(rows: list) -> bytes:
    """Rows as a JSON Lines file; a row given as bytes or str is written as it is."""
    out = []
    for row in rows:
        if isinstance(row, bytes):
            out.append(row)
        elif isinstance(row, str):
            out.append(row.encode("utf-8"))
        else:
            out.append(json.dumps(row, ensure_ascii=False).encode("utf-8"))
    return b"\n".join(out) + b"\n"


def lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


@contextmanager
def rolled_back(django_db_blocker):
    """A block with database access whose writes are all undone when it ends: a module's
    fixture builds what its tests read (a bundle's bytes) once, and leaves no row behind."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield
        transaction.set_rollback(True)


@contextmanager
def shared_by_module(request, django_db_blocker):
    """A block for a module fixture that writes what the module's tests read: each test's
    `db` block is a savepoint inside it, so what a test writes is undone after it, and the
    fixture's writes after the module. A transactional test in the module would run inside
    the open transaction: the module is refused instead."""
    transactional = [
        item.name
        for item in request.session.items
        if item.getparent(pytest.Module) is request.node and _transactional(item)
    ]
    assert not transactional, f"{request.node.name}: transactional tests {transactional}"
    with rolled_back(django_db_blocker):
        yield


@pytest.fixture(scope="module")
def demo_loaded(request, django_db_setup, django_db_blocker):
    """The demo (`load_demo`), loaded once for a module's tests (see shared_by_module)."""
    from django.core.management import call_command

    with shared_by_module(request, django_db_blocker):
        call_command("load_demo")
        yield


def table_counts() -> dict[str, int]:
    """Row counts of every project table: 'nothing was written' compares two of these."""
    return {
        model._meta.label: model.objects.count()
        for app in ("core", "annotation", "judging", "leaderboard", "auth")
        for model in apps.get_app_config(app).get_models()
    }


@pytest.fixture(autouse=True)
def default_language():
    """Each test starts in the default language: a page requested with a Chinese
    Accept-Language leaves Chinese active in the thread, and a later test reading messages
    outside a request would see them in Chinese."""
    yield
    translation.deactivate()


@pytest.fixture
def coordinator(db):
    return user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)


@pytest.fixture
def researcher(db):
    return user_create_with_role(username="research", password=PASSWORD, role=RESEARCHER)


@pytest.fixture
def expert(db):
    return user_create_with_role(username="expert", password=PASSWORD, role=EXPERT)


@pytest.fixture
def outsider(django_user_model):
    return django_user_model.objects.create_user(username="outsider", password=PASSWORD)


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def demo_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "fixtures" / "demo"


def question(qid: str = "c1", **overrides) -> dict:
    row = {
        "question_id": qid,
        "difficulty": "normal",
        "primary_scene": "职场心理",
        "secondary_scene": "工作压力",
        "dialogue": [{"role": "A", "content": "最近加班太多了，我觉得自己快撑不住了。"}],
        "rubric": [
            {"dimension": "情绪感知", "score": 3, "content": "指出用户的疲惫和压力感"},
            {"dimension": "好奇心", "score": 4, "content": "用开放式问题询问加班的具体情况"},
            {"dimension": "言语表达", "score": -10, "content": "一次性给出 8 条或更多建议"},
            {"dimension": "其他", "score": None, "content": "没有回应用户，而是以用户的身份说话"},
        ],
    }
    row.update(overrides)
    return row


_ABSENT = object()


@contextmanager
def celery_overrides(**values):
    """Override Celery settings for a block, then take the overrides away again.

    Assigning to `app.conf` records an override that outlives the test and hides the
    Django settings Celery otherwise reads live (a later test's
    `settings.CELERY_TASK_ALWAYS_EAGER = False` would go unseen): restore by removing."""
    from config.celery import app

    changes = app.conf.changes
    saved = {key: changes.get(key, _ABSENT) for key in values}
    for key, value in values.items():
        setattr(app.conf, key, value)
    try:
        yield app.conf
    finally:
        for key, value in saved.items():
            if value is _ABSENT:
                changes.pop(key, None)
            else:
                changes[key] = value


@pytest.fixture
def broker_down():
    """Celery pointed at a Redis URL (with a password) on a loopback port nobody listens on,
    and tasks not run in-process; yields the URL as people should see it (no credentials)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # free once the socket is closed
    with celery_overrides(
        broker_url=f"redis://concord:s3cret-pass@127.0.0.1:{port}/0", task_always_eager=False
    ):
        yield f"redis://127.0.0.1:{port}/0"


def judge_config(**values):
    """A judge configuration with its first version, through the service pages use."""
    from judging.services.judge_versions import CallSettings, VersionSettings, judge_config_save

    version_fields = set(VersionSettings.__dataclass_fields__)
    call_fields = set(CallSettings.__dataclass_fields__)
    name = values.pop("name", "judge")
    config, _version, _ = judge_config_save(
        name=name,
        settings=VersionSettings(**{k: v for k, v in values.items() if k in version_fields}),
        calls=CallSettings(**{k: v for k, v in values.items() if k in call_fields}),
    )
    unknown = set(values) - version_fields - call_fields
    assert not unknown, f"not a judge setting: {unknown}"
    return config


def board_of(*runs):
    """The leaderboard of exactly these runs."""
    from leaderboard.boards.selectors.runs import board_runs

    return board_runs(benchmark=runs[0].benchmark, runs=[run.pk for run in runs])


def evidence_of(round_, run=None, **options):
    """The agreement evidence of a round and a run (or `latest`)."""
    from leaderboard.evidence.selectors.pick import agreement_evidence

    return agreement_evidence(
        benchmark=round_.benchmark,
        round_ref=str(round_.pk),
        run_ref=str(run.pk) if run is not None else "latest",
        **options,
    )


COMMITTING_FIXTURES = {"transactional_db", "live_server", "django_db_reset_sequences"}
DATABASE_FIXTURES = {"db", *COMMITTING_FIXTURES}


def _touches_the_database(item) -> bool:
    return item.get_closest_marker("django_db") is not None or bool(
        DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))
    )


def _transactional(item) -> bool:
    """Whether pytest-django runs the test with commits (a TransactionTestCase)."""
    marker = item.get_closest_marker("django_db")
    committed = marker is not None and (
        marker.kwargs.get("transaction")
        or marker.kwargs.get("reset_sequences")
        or (marker.args and marker.args[0])
    )
    return bool(committed) or bool(COMMITTING_FIXTURES & set(getattr(item, "fixturenames", ())))


def _cost_rank(item) -> int:
    """Fuzzers first, then browser tests, then the rest: the longest tests start while
    every worker is busy, and the run ends on short ones instead of one worker alone."""
    if item.get_closest_marker("fuzz"):
        return 0
    return 1 if item.get_closest_marker("browser") else 2


def pytest_configure(config):
    quick_reset.install()


def pytest_collection_modifyitems(config, items):
    """With PYTEST_DATABASE_ONLY=1, only the tests that open a database run: CI's second
    database stage. A test without database access (pytest-django refuses it one) gives the
    same answer on every database, and the first stage ran it."""
    if os.environ.get("PYTEST_DATABASE_ONLY") == "1":
        keep = [item for item in items if _touches_the_database(item)]
        if len(keep) < len(items):
            config.hook.pytest_deselected(items=[i for i in items if not _touches_the_database(i)])
            items[:] = keep
    items.sort(key=_cost_rank)
