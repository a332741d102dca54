"""`verify_bundle --key URL` reads the signing keys from an installation's page, over HTTP,
before and after the key rotates."""

import pytest
from django.core.management import CommandError, call_command

from leaderboard.exports.bundles.keys import signing_key_rotate
from leaderboard.models import LeaderboardSnapshot


@pytest.mark.django_db(transaction=True)
def test_verify_bundle_reads_the_key_from_the_installation_url(settings, tmp_path, live_server):
    settings.VAR_DIR = tmp_path / "var"
    call_command("load_demo")
    snapshot = LeaderboardSnapshot.objects.get()
    path = tmp_path / "demo.zip"
    call_command("bundle", str(snapshot.pk), str(path))
    call_command("verify_bundle", str(path), "--key", live_server.url + "/api/signing-key/")
    signing_key_rotate()  # a new key: the listing still holds the one that signed
    call_command("verify_bundle", str(path), "--key", live_server.url + "/api/signing-key/")
    with pytest.raises(CommandError, match="cannot read the key"):
        call_command("verify_bundle", str(path), "--key", live_server.url + "/nothing-here/")
