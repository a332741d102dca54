"""Checking an evidence bundle from the bundle alone (no Django, no database). Every file is
checked against the manifest's SHA-256 and, given the installation's public key, the
manifest against its signature; then everything that can be re-derived is: the judge's
settings fingerprint and identity, the rubrics' digests, the board's scores and its corrected
board (when published with a correcting round), and for each
gate evaluation the agreement, its breakdowns, the sequential block, the raters per item,
the threshold against the floor and the policy, and the gate's decision.

Each check is named (`checks`); each problem names its check and the file it was found in.
A malformed bundle fails with a named problem, never an exception.
"""

import json
import zipfile
from hashlib import sha256
from typing import IO

from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.checks import (
    FILES,
    READABLE,
    SIGNATURE,
    Problem,
    Verification,
)
from leaderboard.exports.bundles.corrected import check_corrected
from leaderboard.exports.bundles.signing import signature_problem
from leaderboard.exports.bundles.verify_board import check_board
from leaderboard.exports.bundles.verify_calls import check_calls
from leaderboard.exports.bundles.verify_evaluation import check_evaluation, evaluation_units
from leaderboard.exports.bundles.verify_experts import check_calibration, check_guidance
from leaderboard.exports.bundles.verify_provenance import (
    check_gate_evaluations,
    check_policy,
    check_rubrics,
    check_settings,
)
from leaderboard.exports.bundles.verify_sample import check_corrected_sample, check_sample

__all__ = ["Problem", "Verification", "evaluation_units", "verify_bundle"]

# What a malformed file raises while it is read; each becomes a named problem.
UNREADABLE = (KeyError, ValueError, TypeError, IndexError, AttributeError, UnicodeDecodeError)


def _manifest(archive: zipfile.ZipFile, result: Verification) -> tuple[dict, bytes] | None:
    names = set(archive.namelist())
    if layout.MANIFEST not in names:
        result.fail(FILES, layout.MANIFEST, "the bundle has no manifest")
        return None
    raw = archive.read(layout.MANIFEST)
    try:
        manifest = json.loads(raw)
    except ValueError as exc:
        result.fail(FILES, layout.MANIFEST, f"is not JSON ({exc})")
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != layout.FORMAT:
        result.fail(FILES, layout.MANIFEST, "not a Concord evidence bundle")
        return None
    if not isinstance(manifest.get("files"), dict):
        result.fail(FILES, layout.MANIFEST, "has no file list")
        return None
    return manifest, raw


def _files(archive: zipfile.ZipFile, manifest: dict, result: Verification) -> dict[str, bytes]:
    names = set(archive.namelist())
    listed = manifest["files"]
    files = {}
    for name, entry in sorted(listed.items()):
        if name not in names:
            result.fail(FILES, name, "listed in the manifest but missing")
            continue
        data = archive.read(name)
        if not isinstance(entry, dict) or sha256(data).hexdigest() != entry.get("sha256"):
            result.fail(FILES, name, "its SHA-256 differs from the manifest: the file was changed")
        files[name] = data
    for name in sorted(names - set(listed) - {layout.MANIFEST, layout.SIGNATURE}):
        result.fail(FILES, name, "not listed in the manifest")
    if "bundle_sha256" in manifest and manifest["bundle_sha256"] != layout.content_sha256(listed):
        result.fail(FILES, layout.MANIFEST, "its bundle_sha256 is not the hash of its file list")
    result.ran_check(FILES, f"{len(listed)} files against the manifest's SHA-256")
    return files


def _signature(archive, raw: bytes, manifest: dict, keys, result: Verification) -> None:
    signed = layout.SIGNATURE in archive.namelist()
    if keys is None:
        result.skip(
            SIGNATURE,
            "signed; give the installation's public key (--key) to check the signature"
            if signed
            else "the bundle is not signed",
        )
        return
    if not signed:
        result.fail(SIGNATURE, layout.SIGNATURE, "the bundle is not signed")
        return
    try:
        entry = json.loads(archive.read(layout.SIGNATURE))
    except ValueError:
        entry = None
    problem = signature_problem(raw, entry, keys)
    if not problem and (manifest.get("signing") or {}).get("key_id") != entry.get("key_id"):
        problem = "the manifest names another signing key than the signature"
    if problem:
        result.fail(SIGNATURE, layout.SIGNATURE, problem)
        return
    result.ran_check(SIGNATURE, f"the manifest's signature, key {entry['key_id']}")


def _readable(step, file: str, result: Verification) -> bool:
    """Run one check; a file that cannot be read fails the READABLE check, naming it."""
    try:
        step()
    except UNREADABLE as exc:
        result.fail(READABLE, file, f"cannot be read: {type(exc).__name__}: {exc}")
        return False
    return True


def _check_contents(files: dict[str, bytes], manifest: dict, result: Verification) -> None:
    state: dict = {}

    def load() -> None:
        state["rubrics"] = {
            layout.rubric_key(row["question_id"], row["rubric_version"]): row
            for row in layout.read_jsonl(files.get(layout.RUBRICS, b""))
        }
        state["taxonomy"] = json.loads(files.get(layout.TAXONOMY, b"{}"))
        state["board"] = json.loads(files[layout.BOARD_JSON])
        if not isinstance(state["board"], dict):
            raise TypeError("not an object")

    if not _readable(load, layout.BOARD_JSON, result):
        return
    rubrics, taxonomy, board = state["rubrics"], state["taxonomy"], state["board"]
    evaluations: list = []

    def present() -> None:
        evaluations.extend(check_gate_evaluations(files, board, result))

    _readable(present, layout.BOARD_JSON, result)
    _readable(
        lambda: check_settings(files, board, evaluations, result), layout.JUDGE_VERSION, result
    )
    _readable(
        lambda: check_rubrics(files, rubrics, board, evaluations, result), layout.RUBRICS, result
    )
    _readable(lambda: check_calls(files, rubrics, result, manifest), layout.JUDGE_CALLS, result)
    _readable(lambda: check_board(files, rubrics, taxonomy, result), layout.VERDICTS, result)
    _readable(lambda: check_corrected(files, rubrics, taxonomy, result), layout.CORRECTED, result)
    _readable(lambda: check_corrected_sample(files, result), layout.CORRECTED_FRAME, result)
    _readable(lambda: check_policy(files, board, evaluations, result), layout.BOARD_JSON, result)
    for evaluation_id in evaluations:
        prefix = layout.EVALUATION_DIR.format(id=evaluation_id)
        _readable(
            lambda prefix=prefix: check_evaluation(files, prefix, rubrics, taxonomy, result),
            prefix + layout.REPORT_JSON,
            result,
        )
        _readable(lambda prefix=prefix: check_sample(files, prefix, result), prefix, result)
    _readable(lambda: check_guidance(files, manifest, result), layout.GUIDANCE, result)
    _readable(lambda: check_calibration(files, manifest, result), layout.CALIBRATION, result)


def verify_bundle(source: str | IO[bytes], *, keys: dict | None = None) -> Verification:
    """Check the bundle at `source` (a path or a binary file). `keys`: the installation's
    public keys by id (`signing.public_keys`); without them the signature is not checked."""
    result = Verification()
    try:
        archive = zipfile.ZipFile(source)
    except (OSError, zipfile.BadZipFile) as exc:
        result.fail(FILES, str(source), f"not a zip file: {exc}")
        return result
    with archive:
        found = _manifest(archive, result)
        if found is None:
            return result
        manifest, raw = found
        _signature(archive, raw, manifest, keys, result)
        files = _files(archive, manifest, result)
        if files:
            _check_contents(files, manifest, result)
        result.bundle_sha256 = manifest.get("bundle_sha256")
    return result
