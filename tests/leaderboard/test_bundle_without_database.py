"""verify_bundle needs no database and no Django: in a fresh directory, plain Python re-derives
the gate decision, the sequential block and the sample from the bundle alone."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from leaderboard.models import LeaderboardSnapshot

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import json, sys
from leaderboard.exports.bundles.verify import verify_bundle
result = verify_bundle(sys.argv[1])
print(json.dumps({"ok": result.ok, "checks": result.as_dict()["checks"],
                  "django": "django" in sys.modules}))
"""


@pytest.mark.django_db
def test_a_fresh_directory_without_django_re_derives_the_bundle(tmp_path):
    call_command("load_demo")
    snapshot = LeaderboardSnapshot.objects.get()
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    call_command("bundle", str(snapshot.pk), str(fresh / "demo.zip"))
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, "demo.zip"],
        cwd=fresh,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    out = json.loads(done.stdout)
    results = {check["name"]: check["result"] for check in out["checks"]}
    assert out["ok"] and not out["django"]
    assert results["gate_decision"] == results["sequential"] == results["sample"] == "pass"
