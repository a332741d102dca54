"""Reading the drift of judge versions: each run's agreement with the experts on the
benchmark's anchors, the drift test on a version's runs (leaderboard.stats.drift), and
the provider's model strings and fingerprints run by run. Reads only.

Every run judges the anchors (judging.services.runs adds those it was not asked for), so
its verdicts on them are read whichever systems it was started for. An anchor whose case's
rubric has changed since its set was made is set aside for every run: its gold is on the
old criteria, and the test compares the same anchors run after run."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from annotation.models import Benchmark
from judging.models import AnchorSet, JudgeAttempt, JudgeRun, JudgeTask, JudgeVersion, Verdict
from judging.models.runs import finished_judge_runs
from judging.selectors.anchors import Anchor, anchor_set_current, anchors_of
from leaderboard.stats.drift import DRIFTED, DriftTest, drift_test
from leaderboard.stats.reasons import ANCHORS_RUBRIC_CHANGED, reason


@dataclass(frozen=True)
class AnchorRun:
    """One finished run of the version on the anchors."""

    run: JudgeRun
    agree: tuple[int, ...]  # per anchor response, in the set's order
    units: int
    missing: int  # anchor units the run has no verdict on: such a run is not tested
    # Anchor units answered from the cache of an earlier call: not a new judgment, so the
    # run is not tested either (run with "ignore cached answers").
    reused: int
    models: tuple[str, ...]  # the model strings the provider answered with
    fingerprints: tuple[str, ...]
    changed: bool = False  # model strings or fingerprints differ from the run before

    @property
    def agreement(self) -> float | None:
        if not self.units or self.missing or self.reused:
            return None
        return sum(self.agree) / self.units


@dataclass(frozen=True)
class VersionDrift:
    anchor_set: AnchorSet | None
    version: JudgeVersion
    runs: list[AnchorRun] = field(default_factory=list)
    test: DriftTest | None = None
    flagged_run: JudgeRun | None = None
    anchors: tuple[Anchor, ...] = ()  # the anchors tested, in the set's order
    set_aside: tuple[Anchor, ...] = ()  # their case's rubric has changed since the set

    @property
    def set_aside_reason(self) -> str | None:
        """Why anchors were left out of the test, as a reason code (None: none were)."""
        if not self.set_aside:
            return None
        return reason(ANCHORS_RUBRIC_CHANGED, anchors=len(self.set_aside))

    @property
    def drifted(self) -> bool:
        return self.test is not None and self.test.state == DRIFTED

    @property
    def drifted_since(self) -> datetime | None:
        """When the run that raised the flag finished."""
        return self.flagged_run.finished if self.flagged_run is not None else None

    def run_evalues(self) -> list[float | None]:
        """Per run shown: the test's e-value after it (None for reference or untested runs)."""
        if self.test is None:
            return [None] * len(self.runs)
        tested = [row.run.pk for row in self.runs if row.agreement is not None]
        later = tested[self.test.reference_runs :]
        after = dict(zip(later[: len(self.test.path)], self.test.path, strict=True))
        return [after.get(row.run.pk) for row in self.runs]

    def as_dict(self) -> dict:
        return {
            "judge_version": self.version.pk,
            "judge": self.version.label,
            "anchor_set": self.anchor_set.pk if self.anchor_set else None,
            "anchors": {
                "tested": len(self.anchors),
                "criteria": sum(len(anchor.gold) for anchor in self.anchors),
                "set_aside": len(self.set_aside),
                "reason": self.set_aside_reason,
            },
            "drifted": self.drifted,
            "drifted_since": self.drifted_since.isoformat() if self.drifted_since else None,
            "flagged_run": self.flagged_run.pk if self.flagged_run else None,
            "test": self.test.as_dict() if self.test else None,
            "runs": [
                {
                    "run": row.run.pk,
                    "agreement": row.agreement,
                    "units": row.units,
                    "missing": row.missing,
                    "reused": row.reused,
                    "models": list(row.models),
                    "system_fingerprints": list(row.fingerprints),
                    "provider_changed": row.changed,
                }
                for row in self.runs
            ],
        }


def _provider_labels(run_ids: list[int], responses: list[int]) -> dict[int, tuple[set, set]]:
    """Per run, the model strings and fingerprints the provider answered the anchor calls
    with (only those: a run's other calls would make the page scan every attempt)."""
    labels: dict[int, tuple[set, set]] = defaultdict(lambda: (set(), set()))
    for run, model, fingerprint in (
        JudgeAttempt.objects.filter(task__run_id__in=run_ids, task__response_id__in=responses)
        .values_list("task__run_id", "provider_model", "system_fingerprint")
        .distinct()
    ):
        if model:
            labels[run][0].add(model)
        if fingerprint:
            labels[run][1].add(fingerprint)
    return labels


def _anchor_runs(
    anchor_set: AnchorSet, anchors: list[Anchor], version: JudgeVersion
) -> list[AnchorRun]:
    runs = list(
        JudgeRun.objects.filter(
            finished_judge_runs(),
            benchmark_id=anchor_set.benchmark_id,
            judge_version=version,
        ).order_by("finished", "pk")
    )
    verdicts: dict[int, dict[tuple[int, int], bool]] = defaultdict(dict)
    reused: dict[int, set[tuple[int, int]]] = defaultdict(set)
    for run, response, criterion, hit, cached in Verdict.objects.filter(
        task__run__in=runs,
        task__status=JudgeTask.Status.DONE,
        task__response_id__in=[anchor.response for anchor in anchors],
    ).values_list("task__run_id", "task__response_id", "criterion_id", "hit", "task__cached_from"):
        verdicts[run][(response, criterion)] = hit
        if cached is not None:
            reused[run].add((response, criterion))
    labels = _provider_labels([run.pk for run in runs], [anchor.response for anchor in anchors])
    rows, before = [], None
    for run in runs:
        judged = verdicts[run.pk]
        agree, missing, units = [], 0, 0
        for anchor in anchors:
            # The anchor's criteria are its rubric version's: a verdict on them is a verdict
            # on that version, never on another.
            found = [judged.get((anchor.response, criterion)) for criterion in anchor.gold]
            missing += sum(verdict is None for verdict in found)
            units += len(anchor.gold)
            agree.append(sum(v == g for v, g in zip(found, anchor.gold.values(), strict=True)))
        models, prints = (tuple(sorted(values)) for values in labels[run.pk])
        changed = before is not None and (models, prints) != before
        again = sum((a.response, c) in reused[run.pk] for a in anchors for c in a.gold)
        rows.append(AnchorRun(run, tuple(agree), units, missing, again, models, prints, changed))
        before = (models, prints)
    return rows


def version_drift(*, benchmark: Benchmark, version: JudgeVersion) -> VersionDrift:
    """The drift test of `version` on the benchmark's current anchors: its finished runs,
    oldest first; runs lacking a verdict on some anchor are shown but not tested, and
    anchors whose case's rubric has changed are set aside."""
    anchor_set = anchor_set_current(benchmark=benchmark)
    if anchor_set is None:
        return VersionDrift(None, version)
    return _version_drift(anchor_set, anchors_of(anchor_set=anchor_set), version)


def _version_drift(
    anchor_set: AnchorSet, every: list[Anchor], version: JudgeVersion
) -> VersionDrift:
    anchors = [anchor for anchor in every if not anchor.rubric_changed]
    aside = tuple(anchor for anchor in every if anchor.rubric_changed)
    rows = _anchor_runs(anchor_set, anchors, version)
    tested = [row for row in rows if row.agreement is not None]
    sizes = [len(anchor.gold) for anchor in anchors]
    if not sizes:
        return VersionDrift(anchor_set, version, rows, anchors=(), set_aside=aside)
    test = drift_test([row.agree for row in tested], sizes)
    flagged = tested[test.flagged_at_run].run if test.flagged_at_run is not None else None
    return VersionDrift(anchor_set, version, rows, test, flagged, tuple(anchors), aside)


def drifted_since(*, benchmark: Benchmark, version: JudgeVersion) -> datetime | None:
    """When the drift test flagged `version` on the benchmark's anchors, if it did. One
    query when the benchmark has no anchors."""
    return version_drift(benchmark=benchmark, version=version).drifted_since


def drifted_versions(*, benchmark: Benchmark, version_ids) -> dict[int, VersionDrift]:
    """Of the given judge versions, those the drift test flagged on the benchmark."""
    found = {}
    versions = list(JudgeVersion.objects.filter(pk__in=set(version_ids)).select_related("config"))
    anchor_set = anchor_set_current(benchmark=benchmark) if versions else None
    if anchor_set is None:
        return found
    # The anchors are read once, whatever the number of versions on the board.
    anchors = anchors_of(anchor_set=anchor_set)
    for version in versions:
        drift = _version_drift(anchor_set, anchors, version)
        if drift.drifted:
            found[version.pk] = drift
    return found
