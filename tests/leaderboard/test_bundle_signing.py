"""Bundles are signed with the installation's Ed25519 key, kept in a 0600 file under the var
directory. A signed bundle verifies with the public key from the page or the API; one
changed byte, or another key, fails the signature check; after the key rotates, old bundles
still verify with the published keys. The published board shows the bundle's hash."""

import io
import json
import stat
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.keys import signing_key_rotate
from leaderboard.exports.bundles.signing import public_keys
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.models import LeaderboardSnapshot
from tests.conftest import client_for
from tests.leaderboard.bundle_tools import read_files

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed(demo_loaded, settings, tmp_path) -> tuple[LeaderboardSnapshot, bytes]:
    settings.VAR_DIR = tmp_path / "var"
    snapshot = LeaderboardSnapshot.objects.get()
    path = tmp_path / "demo.zip"
    call_command("bundle", str(snapshot.pk), str(path))
    return snapshot, path.read_bytes()


def published_keys() -> bytes:
    answer = Client().get(reverse("api-signing-key"))  # anonymous: the keys are public
    assert answer.status_code == 200
    return answer.content


def signature_result(data: bytes, keys: bytes) -> str:
    result = verify_bundle(io.BytesIO(data), keys=public_keys(keys))
    return next(c["result"] for c in result.as_dict()["checks"] if c["name"] == "signature")


def rezip(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name, content in files.items():
            target.writestr(name, content)
    return out.getvalue()


def test_the_key_is_a_private_file_under_the_var_dir(signed, settings):
    folder = Path(settings.VAR_DIR) / "signing"
    keys = list(folder.glob("*.pem"))
    assert len(keys) == 1
    assert stat.S_IMODE(keys[0].stat().st_mode) == 0o600
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(signed[1])).read(layout.MANIFEST))
    assert manifest["signing"]["key_id"] == keys[0].stem


def test_a_signed_bundle_verifies_with_the_published_key(signed, tmp_path, capsys):
    _, data = signed
    keys = published_keys()
    assert signature_result(data, keys) == "pass"
    key_file = tmp_path / "key.pem"
    key_file.write_text(json.loads(keys)["keys"][0]["public_key_pem"])
    bundle = tmp_path / "b.zip"
    bundle.write_bytes(data)
    capsys.readouterr()
    call_command("verify_bundle", str(bundle), "--key", str(key_file), "--json")
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and {"name": "signature", "result": "pass", "problems": 0} in out["checks"]


def test_one_changed_byte_fails_the_signature(signed):
    _, data = signed
    files = read_files(data)
    manifest = files[layout.MANIFEST]
    at = manifest.index(b'"benchmark": "demo"') + len(b'"benchmark": "d')
    files[layout.MANIFEST] = manifest[:at] + b"x" + manifest[at + 1 :]
    assert signature_result(rezip(files), published_keys()) == "fail"


def test_another_key_fails_the_signature(signed, tmp_path):
    _, data = signed
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from leaderboard.exports.bundles.signing import public_pem

    other = public_pem(Ed25519PrivateKey.generate().public_key()).encode()
    assert signature_result(data, other) == "fail"
    path, key = tmp_path / "b.zip", tmp_path / "other.pem"
    path.write_bytes(data)
    key.write_bytes(other)
    with pytest.raises(CommandError, match="signature"):
        call_command("verify_bundle", str(path), "--key", str(key))


def test_old_bundles_still_verify_after_the_key_rotates(signed):
    snapshot, old = signed
    signing_key_rotate()
    new = io.BytesIO()
    from leaderboard.exports.bundles.build import bundle_write

    manifest = bundle_write(snapshot, new)
    keys = published_keys()
    assert len(json.loads(keys)["keys"]) == 2
    assert signature_result(old, keys) == "pass"
    assert signature_result(new.getvalue(), keys) == "pass"
    old_manifest = json.loads(zipfile.ZipFile(io.BytesIO(old)).read(layout.MANIFEST))
    assert old_manifest["signing"]["key_id"] != manifest["signing"]["key_id"]
    # The content hash does not depend on the key: the same board, the same citation.
    assert old_manifest["bundle_sha256"] == manifest["bundle_sha256"]


def test_the_published_board_shows_its_bundle_hash_and_the_key_page(signed, researcher):
    snapshot, data = signed
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(data)).read(layout.MANIFEST))
    page = client_for(researcher).get(reverse("leaderboard-snapshot", args=["demo", snapshot.pk]))
    assert manifest["bundle_sha256"] in page.content.decode()
    key_page = Client().get(reverse("signing-key")).content.decode()
    assert manifest["signing"]["key_id"] in key_page
    assert "BEGIN PUBLIC KEY" in key_page
