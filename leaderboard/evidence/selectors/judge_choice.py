"""Which judge a reading describes when the reader names none: one rule for the
leaderboard, rubric health, the round's sequential card and the disagreements.

The benchmark's published judge (the version of its newest published leaderboard); else
the gate-evaluated judge (the version of the newest passing gate evaluation, else of the
newest evaluation); else the version that finished a run last. Each reading says which of
these picked its judge (leaderboard.gate.wording words it) and lets the reader choose another."""

from annotation.models import Benchmark
from judging.models import JudgeRun, JudgeVersion
from leaderboard.models import GateEvaluation, LeaderboardSnapshot

PUBLISHED, GATE_EVALUATED, LATEST, ASKED, DECIDED = (
    "published",
    "gate_evaluated",
    "latest",
    "judge",
    "decided",
)


def _has_finished_run(benchmark: Benchmark, version_id: int) -> bool:
    runs = JudgeRun.objects.finished().filter(benchmark=benchmark, judge_version_id=version_id)
    return runs.exists()


def default_judge(*, benchmark: Benchmark) -> tuple[JudgeVersion | None, str]:
    """The judge version a reading of `benchmark` describes by default, and the rule that
    picked it (PUBLISHED, GATE_EVALUATED or LATEST); (None, LATEST) without any run."""
    published = (
        LeaderboardSnapshot.objects.filter(benchmark=benchmark)
        .order_by("-created", "-pk")
        .values_list("judge_version_id", flat=True)
        .first()
    )
    if published is not None and _has_finished_run(benchmark, published):
        return JudgeVersion.objects.select_related("config").get(pk=published), PUBLISHED
    evaluated = (
        GateEvaluation.objects.filter(benchmark=benchmark)
        .order_by("-passed", "-created", "-pk")
        .values_list("judge_version_id", flat=True)
        .first()
    )
    if evaluated is not None and _has_finished_run(benchmark, evaluated):
        return JudgeVersion.objects.select_related("config").get(pk=evaluated), GATE_EVALUATED
    newest = (
        JudgeRun.objects.finished()
        .filter(benchmark=benchmark)
        .newest_first()
        .select_related("judge_version__config")
        .first()
    )
    return (newest.judge_version, LATEST) if newest is not None else (None, LATEST)
