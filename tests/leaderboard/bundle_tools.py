"""Building tampered evidence bundles for the tests: a demo bundle's files read out, changed
and written back with the manifest made to match, as an attacker would."""

import hashlib
import io
import json
import zipfile

from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.verify_evaluation import evaluation_items, evaluation_units
from leaderboard.report.agreement import GateRule, agreement_report
from leaderboard.sequential.evidence import sequential_block

PREFIX = "evaluations/{id}/"


def read_files(data: bytes) -> dict[str, bytes]:
    source = zipfile.ZipFile(io.BytesIO(data))
    return {name: source.read(name) for name in source.namelist()}


def write_files(files: dict[str, bytes], *, rewrite_manifest: bool = True) -> bytes:
    """The files as a zip; with `rewrite_manifest`, the manifest lists them as they are now
    (and the now-stale signature is kept as it was)."""
    files = dict(files)
    if rewrite_manifest:
        manifest = json.loads(files[layout.MANIFEST])
        manifest["files"] = {
            name: {"sha256": hashlib.sha256(content).hexdigest(), "bytes": len(content)}
            for name, content in sorted(files.items())
            if name not in (layout.MANIFEST, layout.SIGNATURE)
        }
        manifest["bundle_sha256"] = layout.content_sha256(manifest["files"])
        files[layout.MANIFEST] = json.dumps(manifest, indent=1, sort_keys=True).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name, content in files.items():
            target.writestr(name, content)
    return out.getvalue()


def load(files: dict[str, bytes], name: str):
    return json.loads(files[name])


def store(files: dict[str, bytes], name: str, value) -> None:
    files[name] = layout.json_bytes(value)


def regenerate_report(files: dict, prefix: str, *, threshold: float) -> None:
    """Recompute the report and the evaluation record from the (changed) votes, as a
    careful forger would, under `threshold`."""
    rubrics = {
        layout.rubric_key(r["question_id"], r["rubric_version"]): r
        for r in layout.read_jsonl(files[layout.RUBRICS])
    }
    taxonomy = load(files, layout.TAXONOMY)
    units = evaluation_units(files, prefix, rubrics, taxonomy)
    ranks = {int(i["item"]): int(i["hand_out_rank"]) for i in evaluation_items(files, prefix)}
    record = load(files, prefix + layout.EVALUATION)
    report = agreement_report(
        units,
        threshold=threshold,
        rule=GateRule.POINT,
        sequential=sequential_block(
            units, ranks, raters_per_item=record["raters_per_item"], threshold=threshold
        ),
    )
    store(files, prefix + layout.REPORT_JSON, report.as_json())
    record.update(
        threshold=threshold,
        passed=report.gate["passed"],
        agreement=report.percent_agreement,
        units=report.units,
        lower_bound=report.wilson_95[0],
        upper_bound=report.wilson_95[1],
    )
    store(files, prefix + layout.EVALUATION, record)
