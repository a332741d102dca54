"""What the methods section states, as plain data, from the evidence of an agreement report
(`leaderboard.evidence.selectors.pick.agreement_evidence`): the report's numbers under the report's
own keys, and what the round, its raters, the judge version and the published board record.
Nothing here picks runs or votes: the raters are those whose votes are in the evidence."""

from collections import Counter

from annotation import audit_actions
from annotation.models import ExpertProfile
from config.version import CONCORD_VERSION
from core.models import AuditEvent
from leaderboard.boards.selectors.runs import judge_version_header
from leaderboard.evidence.selectors.pick import Evidence, evidence_header
from leaderboard.methods.corrected import corrected_scores
from leaderboard.methods.text import CITATIONS, citation_keys
from leaderboard.models import LeaderboardSnapshot
from leaderboard.report.selectors.agreement import rater_pseudonyms

# The report's entries the methods section states, under the report's keys.
REPORT_KEYS = (
    "units",
    "excluded",
    "units_by_raters",
    "min_raters",
    "short_of_raters",
    "percent_agreement",
    "wilson_95",
    "bootstrap_95",
    "bootstrap",
    "cohen_kappa",
    "humans",
    "gate",
    "undefined",
)
# Where a run's settings may record the provider's own fingerprint of the model it served.
PROVIDER_FINGERPRINT_KEYS = ("system_fingerprint", "provider_fingerprint")


class MethodsUnavailable(Exception):
    """The evidence has no report; the message says why."""


def _raters(evidence: Evidence) -> dict:
    round_ = evidence.round
    voted = {rater for unit in evidence.units for rater, _hit in unit.votes}
    users = [pk for pk, name in rater_pseudonyms(round_=round_).items() if name in voted]
    profiles = list(
        ExpertProfile.objects.filter(user_id__in=users).values_list(
            "specialities", "calibrated", "rate_per_item"
        )
    )
    specialities = Counter(
        name
        for recorded, _calibrated, _rate in profiles
        for name in {str(each).strip() for each in recorded or [] if str(each).strip()}
    )
    with_speciality = sum(
        1 for recorded, _c, _r in profiles if any(str(s).strip() for s in recorded or [])
    )
    return {
        "count": len(voted),
        "raters_per_item": round_.raters_per_item,
        "specialities": sorted(specialities.items(), key=lambda pair: (-pair[1], pair[0])),
        "without_speciality": len(voted) - with_speciality,
        "calibrated": sum(1 for _s, calibrated, _r in profiles if calibrated),
        "rate_per_item": None if round_.rate_per_item is None else str(round_.rate_per_item),
        "own_rates": sum(1 for _s, _c, rate in profiles if rate is not None),
    }


def _sample(evidence: Evidence) -> dict:
    round_ = evidence.round
    extensions = list(
        AuditEvent.objects.filter(
            action=audit_actions.ROUND_EXTENDED,
            benchmark=round_.benchmark,
            details__round=round_.name,
        )
        .order_by("created", "pk")
        .values_list("details", flat=True)
    )
    opened = AuditEvent.objects.filter(
        action=audit_actions.ROUND_OPENED,
        benchmark=round_.benchmark,
        details__round=round_.name,
    ).exists()
    return {
        # Made by importing votes collected elsewhere, not opened (and sampled) by Concord.
        "imported": not opened,
        "items": evidence.items,
        "fraction": round_.fraction,
        "seed": round_.seed,
        "systems": sorted(round_.systems.values_list("name", flat=True)),
        "strata": ["difficulty", "primary_scenario", "system"],
        "first_fraction": extensions[0]["from"] if extensions else round_.fraction,
        "extensions": [
            {"from": each["from"], "to": each["to"], "added": each["added"]} for each in extensions
        ],
        # Every extension draws with the round's seed + 1 (annotation.services.review_rounds).
        "extension_seed": round_.seed + 1 if extensions else None,
        "calibration_round": round_.is_calibration,
        "difficulty_shown": round_.show_difficulty,
    }


def _judge(evidence: Evidence) -> dict | None:
    version = evidence.judge_version
    if version is None:
        return None
    header = judge_version_header(version)
    settings = header["settings"]
    provider = sorted(
        {
            str(value)
            for run in evidence.runs
            for key in PROVIDER_FINGERPRINT_KEYS
            if (value := (run.settings_snapshot or {}).get(key))
        }
    )
    return {
        "label": version.label,
        "source": settings["source"],
        "model": settings["model"],
        "prompt": settings["prompt"],
        "temperature": settings["temperature"],
        "seed": settings["seed"],
        "fingerprint": header["fingerprint"],
        "provider_fingerprint": ", ".join(provider) or None,
    }


def _published(evidence: Evidence) -> LeaderboardSnapshot | None:
    """The newest published leaderboard whose gate evaluation read this round for this judge
    version."""
    version = evidence.judge_version
    if version is None:
        return None
    return (
        LeaderboardSnapshot.objects.filter(
            benchmark=evidence.benchmark, judge_version=version, gate__round=evidence.round
        )
        .order_by("-created", "-pk")
        .first()
    )


def _bundle(snapshot: LeaderboardSnapshot | None) -> dict | None:
    """The published leaderboard's number and its bundle's SHA-256 (None: not published)."""
    if snapshot is None:
        return None
    from leaderboard.exports.bundles.citation import (
        bundle_hash,  # may build the bundle: when needed
    )

    return {"snapshot": snapshot.pk, "sha256": bundle_hash(snapshot)}


def methods_facts(evidence: Evidence) -> dict:
    """Everything the methods section states about `evidence`, as JSON-ready data. Raises
    MethodsUnavailable when the evidence has no report."""
    if evidence.report is None:
        raise MethodsUnavailable(evidence.problem)
    stated = evidence.report.as_json()
    published = _published(evidence)
    facts = {**evidence_header(evidence), **{key: stated[key] for key in REPORT_KEYS}}
    facts.update(
        units_total=len(evidence.units),
        raters=_raters(evidence),
        sample=_sample(evidence),
        judge=_judge(evidence),
        concord_version=CONCORD_VERSION,
        bundle=_bundle(published),
        # Under the published board's scoring profile, else the leaderboard's default.
        corrected=corrected_scores(
            evidence, **({"profile": published.profile} if published else {})
        ),
    )
    facts["citations"] = [CITATIONS[key] for key in citation_keys(facts)]
    return facts
