"""The expert evidence beyond the votes, checked from the bundle alone (no Django): each
guidance version the experts read hashes to the digest the manifest states, none is
missing or added, and each was current while they voted; each rater's calibration
agreement and pass are recomputed from their answers against the reference answers."""

import json
from datetime import datetime

from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.checks import CALIBRATION, GUIDANCE, Verification, same

# Bundles of this format version on carry guidance and calibration results.
SINCE_VERSION = 3


def _moment(value) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _current_during(version: dict, windows: list[tuple[datetime, datetime]]) -> bool:
    start, end = _moment(version["from"]), _moment(version["until"])
    return any(
        (start is None or start <= w_end) and (end is None or end > w_start)
        for w_start, w_end in windows
    )


def check_guidance(files: dict[str, bytes], manifest: dict, result: Verification) -> None:
    stated = manifest.get("guidance")
    if stated is None and manifest.get("version", 0) < SINCE_VERSION:
        result.skip(GUIDANCE, "the bundle was made before guidance was carried")
        return
    where = layout.GUIDANCE
    if not isinstance(stated, dict):
        result.fail(GUIDANCE, layout.MANIFEST, "states no digests of the guidance")
        return
    if where not in files:
        result.fail(GUIDANCE, where, "missing: the guidance the experts read is not in the bundle")
        return
    record = json.loads(files[where])
    windows = [(_moment(w["from"]), _moment(w["until"])) for w in record["windows"]]
    found = {}
    for document in record["documents"]:
        for version in document["versions"]:
            found[version["id"]] = version
            digest = layout.canonical_sha256(version["content"])
            if digest != version["sha256"] or digest != stated.get(version["id"]):
                result.fail(
                    GUIDANCE,
                    where,
                    f"{version['id']}: its text does not hash to the digest the manifest "
                    "states: the text was changed",
                )
            if not document.get("unrecorded") and not _current_during(version, windows):
                result.fail(
                    GUIDANCE, where, f"{version['id']}: was not current while the experts voted"
                )
    for name in sorted(set(stated) - set(found)):
        result.fail(GUIDANCE, where, f"{name}: stated in the manifest but missing from the file")
    for name in sorted(set(found) - set(stated)):
        result.fail(GUIDANCE, where, f"{name}: not stated in the manifest")
    result.ran_check(GUIDANCE, f"{len(found)} guidance versions against the manifest's digests")


def check_calibration(files: dict[str, bytes], manifest: dict, result: Verification) -> None:
    where = layout.CALIBRATION
    if where not in files:
        if manifest.get("version", 0) < SINCE_VERSION:
            result.skip(CALIBRATION, "the bundle was made before calibration results were carried")
        else:
            result.fail(CALIBRATION, where, "missing: the raters' calibration results")
        return
    record = json.loads(files[where])
    threshold = float(record["threshold"])
    results = record["results"]
    for row in results:
        who = f"{row['rater']} in {row['round']}"
        answers = row["answers"]
        agreed = sum(int(a["rater_hit"]) == int(a["reference_hit"]) for a in answers)
        agreement = agreed / len(answers) if answers else None
        passed = agreement is not None and agreement >= threshold
        complete = bool(row["reference_answers"]) and len(answers) == row["reference_answers"]
        if not same(row["agreement"], agreement):
            result.fail(
                CALIBRATION,
                where,
                f"{who}: agreement {row['agreement']} stated, {agreement} from the answers",
            )
        if row["passed"] is not passed or row["complete"] is not complete:
            result.fail(
                CALIBRATION,
                where,
                f"{who}: stated passed={row['passed']} complete={row['complete']}, the answers "
                f"give passed={passed} complete={complete} (threshold {threshold})",
            )
    result.ran_check(CALIBRATION, f"{len(results)} calibration results recomputed")
