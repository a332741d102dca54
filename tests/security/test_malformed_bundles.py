"""A malformed evidence bundle gets a named failure from verify_bundle, never a traceback:
a manifest that is not JSON, a report.json that is `{}`, and other broken files."""

import io
import zipfile

import pytest
from django.core.management import CommandError, call_command

from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.models import LeaderboardSnapshot
from tests.conftest import rolled_back
from tests.leaderboard.bundle_tools import PREFIX, read_files, write_files

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker, tmp_path_factory) -> tuple[bytes, str]:
    """The demo's bundle, built once: each test breaks its own copy of the bytes."""
    with rolled_back(django_db_blocker):
        call_command("load_demo")
        snapshot = LeaderboardSnapshot.objects.get()
        path = tmp_path_factory.mktemp("demo") / "demo.zip"
        call_command("bundle", str(snapshot.pk), str(path))
        return path.read_bytes(), PREFIX.format(id=snapshot.gate_id)


def problems_of(data: bytes, tmp_path) -> list:
    result = verify_bundle(io.BytesIO(data))
    assert not result.ok
    path = tmp_path / "bad.zip"
    path.write_bytes(data)
    with pytest.raises(CommandError):
        call_command("verify_bundle", str(path), "--json")
    return result.problems


def test_a_manifest_that_is_not_json_is_a_named_failure(tmp_path):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(layout.MANIFEST, b"{not json")
    problems = problems_of(out.getvalue(), tmp_path)
    assert problems[0].file == layout.MANIFEST and "not JSON" in problems[0].message


def test_an_empty_report_is_a_named_failure(demo, tmp_path):
    data, prefix = demo
    files = read_files(data)
    files[prefix + layout.REPORT_JSON] = b"{}"
    problems = problems_of(write_files(files), tmp_path)
    assert any(p.file == prefix + layout.REPORT_JSON and p.check == "readable" for p in problems)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        (layout.BOARD_JSON, b"[]"),
        (layout.JUDGE_VERSION, b"null"),
        (layout.RUBRICS, b"not json\n"),
        ("{prefix}" + layout.EVALUATION, b"{}"),
        ("{prefix}" + layout.ITEMS, b"a,b\n1,2\n"),
        ("{prefix}" + layout.VOTES, "题目\n".encode() + b"\xff\xfe"),
        (layout.BOARD_CSV, b"system,overall\nModel Alpha,abc\n"),
    ],
)
def test_other_broken_files_are_named_failures(demo, tmp_path, name, content):
    data, prefix = demo
    files = read_files(data)
    files[name.format(prefix=prefix)] = content
    assert problems_of(write_files(files), tmp_path)
