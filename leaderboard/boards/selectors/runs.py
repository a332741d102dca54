"""Which runs a leaderboard reads, and which of their verdicts count.

A leaderboard belongs to one judge version: it reads that version's finished runs on the
benchmark and, for each (system, case), the newest verdicts (the done task that finished
last). So three systems judged in three runs, or imported with three `import_judgments`
calls under one judge name, make one board of three systems; a case judged again replaces
its older verdicts. A (system, case) whose task failed in every run is counted as failed,
never scored.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property

from django.db.models import DateTimeField, Exists, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from annotation.models import Benchmark
from judging.models import JudgeConfig, JudgeRun, JudgeTask, JudgeVersion
from leaderboard.evidence.selectors.judge_choice import default_judge

NEVER = datetime(1970, 1, 1, tzinfo=UTC)


class BoardNotFound(Exception):
    """The judge or runs asked for do not make a board here; the message says why."""


@dataclass(frozen=True)
class BoardRuns:
    benchmark: Benchmark
    runs: tuple[JudgeRun, ...]  # newest first
    chosen_by: str  # "judge", "runs", or how the default was picked (judge_choice)

    @property
    def run_ids(self) -> list[int]:
        return sorted(run.pk for run in self.runs)

    @property
    def key(self) -> str:
        return ",".join(map(str, self.run_ids))

    @cached_property
    def judge_version(self) -> JudgeVersion | None:
        """The one judge version of every run, or None when they differ."""
        versions = {run.judge_version_id for run in self.runs}
        return self.runs[0].judge_version if len(versions) == 1 else None

    @property
    def finished(self) -> bool:
        return all(run.status == JudgeRun.Status.FINISHED for run in self.runs)

    def tasks(self) -> QuerySet:
        """The done tasks whose verdicts count: per (system, case), the one that finished
        last (ties: the later task). Only tasks the runs were asked for: an anchor a run
        judged for the drift test alone is no part of its board."""
        done = JudgeTask.objects.requested().filter(
            run_id__in=self.run_ids, status=JudgeTask.Status.DONE
        )
        if len(self.runs) == 1:
            return done
        # A done task always has its finishing time; one written without (by hand) counts
        # as the oldest.
        done = done.annotate(at=Coalesce("finished", Value(NEVER, output_field=DateTimeField())))
        newer = done.filter(system_id=OuterRef("system_id"), case_id=OuterRef("case_id")).filter(
            Q(at__gt=OuterRef("at")) | Q(at=OuterRef("at"), pk__gt=OuterRef("pk"))
        )
        return done.filter(~Exists(newer))

    def failed(self) -> QuerySet:
        """Failed tasks of (system, case) pairs that no run judged: one per pair."""
        failed = JudgeTask.objects.requested().filter(
            run_id__in=self.run_ids, status=JudgeTask.Status.FAILED
        )
        if len(self.runs) == 1:
            return failed
        done = JudgeTask.objects.requested().filter(
            run_id__in=self.run_ids,
            status=JudgeTask.Status.DONE,
            system_id=OuterRef("system_id"),
            case_id=OuterRef("case_id"),
        )
        other = failed.filter(
            system_id=OuterRef("system_id"), case_id=OuterRef("case_id"), pk__gt=OuterRef("pk")
        )
        return failed.filter(~Exists(done), ~Exists(other))


def _finished_runs(benchmark: Benchmark, version: JudgeVersion) -> tuple[JudgeRun, ...]:
    return tuple(
        JudgeRun.objects.finished()
        .filter(benchmark=benchmark)
        .of_judge(version)
        .select_related("judge_version__config")
        .newest_first()
    )


def board_runs(*, benchmark: Benchmark, judge: str = "", runs: Sequence[int] = ()) -> BoardRuns:
    """The runs of a board: those given; or every finished run of the named judge's current
    version; or, with neither, every finished run of the version that finished a run last.
    Raises BoardNotFound with the reason when there are none. With neither, the judge is
    the benchmark's default (leaderboard.evidence.selectors.judge_choice: published, else
    gate-evaluated, else the version that finished a run last); `chosen_by` says which."""
    if runs:
        found = {
            run.pk: run
            for run in JudgeRun.objects.filter(
                benchmark=benchmark, kind=JudgeRun.Kind.JUDGE, pk__in=list(runs)
            ).select_related("judge_version__config")
        }
        missing = sorted(set(runs) - set(found))
        if missing:
            raise BoardNotFound(
                _("No judge run %(ids)s in this benchmark.")
                % {"ids": ", ".join(f"#{pk}" for pk in missing)}
            )
        ordered = sorted(found.values(), key=lambda r: (r.finished is not None, r.finished, r.pk))
        return BoardRuns(benchmark=benchmark, runs=tuple(reversed(ordered)), chosen_by="runs")
    if judge:
        config = JudgeConfig.objects.filter(name=judge).select_related("current_version").first()
        if config is None or config.current_version is None:
            raise BoardNotFound(_("No judge named %(name)s.") % {"name": judge})
        version = config.current_version
        chosen = _finished_runs(benchmark, version)
        if not chosen:
            raise BoardNotFound(
                _("%(judge)s has no finished run on this benchmark.") % {"judge": version.label}
            )
        return BoardRuns(benchmark=benchmark, runs=chosen, chosen_by="judge")
    version, rule = default_judge(benchmark=benchmark)
    if version is None:
        raise BoardNotFound(
            _(
                "This benchmark has no finished judge run yet: start one, or import "
                "judgments with import_judgments."
            )
        )
    return BoardRuns(benchmark=benchmark, runs=_finished_runs(benchmark, version), chosen_by=rule)


def judge_version_header(version: JudgeVersion) -> dict:
    """How machine-readable outputs name a judge version: its settings, with the prompt by
    name and version (the fingerprint covers its full text, which the judge version's
    record and the exports' provenance files carry)."""
    settings = version.settings()
    prompt = settings.pop("prompt")
    settings["prompt"] = None if prompt is None else f"{prompt['name']} v{prompt['version']}"
    return {
        "config": version.config.name,
        "number": version.number,
        "fingerprint": version.fingerprint,
        "settings": settings,
    }
