import json
import urllib.error
import urllib.request
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.exports.bundles.signing import KeyUnreadable, public_keys
from leaderboard.exports.bundles.verify import verify_bundle

KEY_TIMEOUT_SECONDS = 20


def _key_bytes(source: str) -> bytes:
    """The key at a path, or at an http(s) URL (an installation's /api/signing-key/)."""
    if source.startswith(("http://", "https://")):
        request = urllib.request.Request(source, headers={"Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=KEY_TIMEOUT_SECONDS) as answer:
                return answer.read(1024 * 1024)
        except (urllib.error.URLError, OSError) as exc:
            raise CommandError(f"cannot read the key at {source}: {exc}") from exc
    try:
        return Path(source).read_bytes()
    except OSError as exc:
        raise CommandError(f"cannot read the key file {source}: {exc.strerror}") from exc


class Command(BaseCommand):
    help = (
        "Check an evidence bundle from the bundle alone, with no database: every file against "
        "its manifest, and, with --key, the manifest's signature; then the settings "
        "fingerprint, the judge's identity, the rubrics, the scores, and for each gate "
        "evaluation the agreement, breakdowns, sequential block, raters per item, threshold "
        "floor, policy and decision, recomputed; the guidance the experts read against the "
        "manifest's digests, and the raters' calibration results recomputed. Exits non-zero, "
        "naming the failed checks."
    )
    requires_system_checks: list = []

    def add_arguments(self, parser) -> None:
        parser.add_argument("path")
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument(
            "--key",
            metavar="FILE|URL",
            help="the installation's public key: a PEM file, or the JSON (file or URL) of "
            "its /api/signing-key/; checks the signature",
        )

    @no_translations
    def handle(self, *args, path, **opts) -> None:
        keys = None
        if opts.get("key"):
            try:
                keys = public_keys(_key_bytes(opts["key"]))
            except KeyUnreadable as exc:
                raise CommandError(f"the key {opts['key']} cannot be used: {exc}") from exc
        result = verify_bundle(path, keys=keys)
        summary = result.as_dict()
        if opts["json"]:
            self.stdout.write(json.dumps(summary, ensure_ascii=False))
        else:
            for check in summary["checks"]:
                reason = f" ({check['reason']})" if check.get("reason") else ""
                self.stdout.write(f"{check['result']:>7}  {check['name']}{reason}")
            for problem in result.problems:
                self.stdout.write(f"FAIL {problem.check} in {problem.file}: {problem.message}")
        if not result.ok:
            failed = ", ".join(c["name"] for c in summary["checks"] if c["result"] == "fail")
            files = ", ".join(sorted({p.file for p in result.problems}))
            raise CommandError(f"the bundle does not hold what it claims: {failed} ({files})")
        if not opts["json"]:
            self.stdout.write(
                f"ok: the bundle holds what it claims (bundle SHA-256 {result.bundle_sha256})"
            )
