"""Judge selection's calibration → held-out view: each judge version derived from a
round's calibration part against its parent, on held-out items only
(leaderboard.selection.calibration_comparison), with both versions' cost per 1,000 responses."""

from collections.abc import Collection, Mapping

from annotation.models import ReviewRound
from judging.models import JudgeVersion
from leaderboard.evidence.selectors.holdout import derived_on_round
from leaderboard.gate.refusals import CALIBRATION_LEAK
from leaderboard.selection.calibration_comparison import held_out_comparison
from leaderboard.selection.choice import Agreeing
from leaderboard.selection.wording_calibration import (
    PARENT_NOT_ON_ROUND,
    verdict_words,
    why_no_verdict,
)


def _labels(versions: Mapping[int, JudgeVersion], wanted: set[int]) -> dict[int, str]:
    """Labels of the parents not judged on the round. One query, only if there are any."""
    missing = wanted - set(versions)
    found = {pk: version.label for pk, version in versions.items() if pk in wanted}
    if missing:
        for version in JudgeVersion.objects.filter(pk__in=missing).select_related("config"):
            found[version.pk] = version.label
    return found


def calibration_to_held_out(
    *,
    round_: ReviewRound,
    versions: Mapping[int, JudgeVersion],
    judges: Mapping[int, dict],
    flags: Mapping[int, Mapping[tuple[int, int], Agreeing]],
    calibration: Collection[int],
    resamples: int,
) -> list[dict]:
    """One entry per derived version among `versions` (those covering the round, by id),
    its parent's label and the comparison, or the reason there is none. `calibration` is
    the round's calibration part, left out for a version derived from this round."""
    derived = {pk: v for pk, v in versions.items() if v.parent_id is not None}
    labels = _labels(versions, {v.parent_id for v in derived.values()})
    entries = []
    for pk, version in derived.items():
        here = derived_on_round(version, round_)
        parent = version.parent_id
        origin = version.derived_from_round
        entry = {
            "derived": judges[pk]["label"],
            "parent": labels.get(parent),
            "derived_from_round": origin.name if origin is not None else None,
            "on_its_calibration_round": here,
            "excluded": {"calibration": judges[pk].get("excluded", {}).get("calibration", 0)},
            "cost_per_1000": {
                "derived": judges[pk]["cost_per_1000"],
                "parent": judges[parent]["cost_per_1000"] if parent in judges else None,
            },
            "comparison": None,
            "verdict": None,
            "verdict_text": "",
            "reason": None,
        }
        if here and (judges[pk].get("calibration") or {}).get("refusal") == CALIBRATION_LEAK:
            entry["reason"] = CALIBRATION_LEAK
        elif parent not in judges:
            entry["reason"] = PARENT_NOT_ON_ROUND
        else:
            comparison = held_out_comparison(
                flags[parent],
                flags[pk],
                calibration=calibration if here else (),
                resamples=resamples,
            )
            entry["comparison"] = comparison
            entry["verdict"] = comparison["verdict"]
            entry["verdict_text"] = verdict_words(comparison["verdict"])
        entry["reason_text"] = why_no_verdict(entry["reason"])
        entries.append(entry)
    return sorted(entries, key=lambda entry: entry["derived"])
