"""Downloads reach the server in blocks, with the headers sent before any query runs: the
same bytes as the export job writes, in far fewer pieces."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import RESEARCHER
from accounts.services import user_create_with_role
from core.tables import BLOCK_SIZE, in_blocks
from judging.scoring import Profile
from leaderboard.exports.files import export_lines
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

pytestmark = pytest.mark.django_db


def test_in_blocks_keeps_the_bytes_and_groups_them():
    lines = [f"{i},行{i}\n" for i in range(20_000)]
    pieces = list(in_blocks(["header\n", *lines], size=1000))
    assert pieces[0] == b"" and pieces[1] == b"header\n"
    assert b"".join(pieces) == ("header\n" + "".join(lines)).encode("utf-8")
    assert all(len(p) >= 1000 for p in pieces[2:-1]) and len(pieces[-1]) > 0
    assert len(pieces) < 20_000 // 50
    assert list(in_blocks([])) == [b""]


@pytest.mark.parametrize("kind", ["tidy", "votes", "verdicts", "scores"])
@pytest.mark.parametrize("fmt", ["csv", "csv-raw", "jsonl"])
def test_a_download_streams_the_export_bytes_in_blocks(data, kind, fmt):  # noqa: F811
    round_, run = data
    researcher = user_create_with_role(username="r", password="x-pass-123", role=RESEARCHER)
    response = client_for(researcher).get(
        reverse("export-download", args=["hb", kind, fmt]), {"round": round_.pk, "run": run.pk}
    )
    pieces = iter(response.streaming_content)
    with CaptureQueriesContext(connection) as queries:
        assert next(pieces) == b""  # the headers go out before the file's queries run
    assert len(queries) == 0
    body = b"".join(pieces)
    expected = b"".join(
        export_lines(kind=kind, fmt=fmt, round_=round_, run=run, profile=Profile.HEARTBENCH)
    )
    assert body == expected and body


def test_a_large_file_is_sent_in_few_pieces(data):  # noqa: F811
    round_, run = data
    lines = list(
        export_lines(kind="votes", fmt="csv", round_=round_, run=run, profile=Profile.HEARTBENCH)
    )
    assert len(lines) > 1  # rows, not only the header, so the file below is large
    repeated = lines[:1] + lines[1:] * (4 * BLOCK_SIZE // max(1, sum(map(len, lines[1:]))) + 1)
    pieces = list(in_blocks(repeated))
    assert sum(map(len, repeated)) > 4 * BLOCK_SIZE
    assert b"".join(pieces) == b"".join(repeated)
    assert len(pieces) <= 2 + sum(map(len, repeated)) // BLOCK_SIZE + 1
