"""What a process that only runs the system checks (every command, every worker) imports:
not the API's views, the statistics' numpy or the Markdown parser. Those load on first use;
a web process loads every view before its first request. Fresh interpreters: in this one
everything is long imported."""

import json
import os
import subprocess
import sys
from pathlib import Path

from django.urls import resolve

ROOT = Path(__file__).resolve().parents[2]
ONLY_SOME_PATHS_NEED = (
    "numpy",
    "markdown_it",
    "drf_spectacular.utils",
    "annotation.api.views",
    "judging.api",
    "leaderboard.report.api",
    "leaderboard.gate.api",
    "leaderboard.report.views.agreement",
    "config.api_version",
)


def _loaded_after(code: str) -> dict[str, bool]:
    names = repr(ONLY_SOME_PATHS_NEED)
    report = f"; import json; print(json.dumps({{m: m in sys.modules for m in {names}}}))"
    done = subprocess.run(
        [sys.executable, "-c", "import os, sys" + code + report],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local"},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_checks_import_none_of_what_only_some_paths_need():
    loaded = _loaded_after(
        "; import django; django.setup(); from django.core.management import call_command;"
        " call_command('check', stdout=sys.stderr)"
    )
    assert not any(loaded.values()), loaded


def test_a_web_process_loads_every_view_before_its_first_request():
    loaded = _loaded_after("; import config.wsgi")
    assert loaded["annotation.api.views"] and loaded["leaderboard.report.views.agreement"]
    assert loaded["numpy"]


def test_a_view_named_by_path_behaves_as_the_view(client):
    from annotation.api.views import BenchmarkList

    match = resolve("/api/benchmarks/")
    assert match.func.cls is BenchmarkList  # what drf-spectacular reads
    assert match.func.csrf_exempt is True  # what the CSRF middleware reads
    assert client.get("/api/benchmarks/").status_code in (401, 403)


def test_building_a_url_imports_none_of_them():
    """Commands and workers build links (an e-mail-free invitation, a run's page): the URL
    resolver names every pattern's view as it fills its tables, without importing it."""
    loaded = _loaded_after(
        "; import django; django.setup(); from django.urls import reverse;"
        " reverse('help'); reverse('api-agreement', args=['hb'])"
    )
    assert not any(loaded.values()), loaded
