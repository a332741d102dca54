"""What produced an export file: its provenance record, served next to the file as JSON.

A CSV or JSON Lines file stays a plain table that analysis code reads as it is; the record
names the judge version with every setting that can change a verdict (the prompt by its
full text), the round and its seed, the rubric version of every case in the file, the
scoring profile and Concord's version. It holds no key: a configuration's key variable is
not a judge setting, and keys never leave the environment."""

from annotation.models import ReviewItem, ReviewRound
from config.version import CONCORD_VERSION
from judging.models import JudgeRun, JudgeTask
from judging.scoring import Profile
from leaderboard.evidence.provenance import rubric_versions_of


def _run_record(run: JudgeRun) -> dict:
    version = run.judge_version
    return {
        "id": run.pk,
        "status": run.status,
        "source": run.source,
        "created": run.created.isoformat(),
        "finished": run.finished.isoformat() if run.finished else None,
        "systems": sorted(run.systems.values_list("name", flat=True)),
        "judge_version": {
            "config": version.config.name,
            "number": version.number,
            "fingerprint": version.fingerprint,
            "settings": version.settings(),
        },
    }


def _round_record(round_: ReviewRound) -> dict:
    return {
        "name": round_.name,
        "status": round_.status,
        "seed": round_.seed,
        "fraction": round_.fraction,
        "raters_per_item": round_.raters_per_item,
        "systems": sorted(round_.systems.values_list("name", flat=True)),
    }


def export_provenance(
    *, kind: str, round_: ReviewRound | None, run: JudgeRun | None, profile: Profile
) -> dict:
    """The provenance record of the export of `kind` for this round and run."""
    record: dict = {
        "concord_version": CONCORD_VERSION,
        "benchmark": (round_ or run).benchmark.slug,
        "export": kind,
    }
    if round_ is not None:
        record["round"] = _round_record(round_)
        pairs = ReviewItem.objects.filter(round=round_).values_list(
            "response__case__external_id", "rubric_version__number"
        )
    else:
        pairs = (
            JudgeTask.objects.requested()
            .filter(run=run)
            .values_list("case__external_id", "rubric_version__number")
        )
    if run is not None:
        record["judge_run"] = _run_record(run)
    if kind in ("scores", "corrected"):
        record["profile"] = profile.value
    record["rubric_versions"] = rubric_versions_of(pairs)
    return record
