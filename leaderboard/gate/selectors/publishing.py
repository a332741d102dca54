"""What the gate policy is asked: the board's runs, the judge version's evaluations on the
benchmark and the rubric changes since each evaluated round, read for `publish_decision`."""

from collections import defaultdict

from annotation.models import Assignment, RubricVersion
from judging.scoring import Profile
from leaderboard.boards.selectors.runs import BoardRuns
from leaderboard.corrected.board import corrected_board
from leaderboard.drift.selectors import drifted_since
from leaderboard.evidence.selectors.pick import gate_policy
from leaderboard.gate.policy import Board, Decision, Evaluation, publish_decision
from leaderboard.models import GateEvaluation, LeaderboardSnapshot


def version_evaluations(*, benchmark, judge_version_ids) -> list[GateEvaluation]:
    return list(
        GateEvaluation.objects.filter(benchmark=benchmark, judge_version_id__in=judge_version_ids)
        .select_related("round", "run", "judge_version__config")
        .order_by("-created", "-pk")
    )


def _policy_view(evaluation: GateEvaluation) -> Evaluation:
    return Evaluation(
        id=evaluation.pk,
        judge_version=evaluation.judge_version_id,
        round_id=evaluation.round_id,
        round_opened=evaluation.round.created,
        recorded=evaluation.created,
        passed=evaluation.passed,
        rule=evaluation.rule,
        threshold=evaluation.threshold,
    )


def rubric_changes_since(*, board: BoardRuns, rounds) -> dict[int, int]:
    """Per round: how many of the board's cases were judged on a rubric version other than
    the one current when the round was opened. Two queries."""
    judged = set(board.tasks().values_list("case_id", "rubric_version_id").distinct())
    history = defaultdict(list)
    for case, pk, created in RubricVersion.objects.filter(
        case_id__in={case for case, _ in judged}
    ).values_list("case_id", "pk", "created"):
        history[case].append((created, pk))
    changes = {}
    for round_ in rounds:
        current = {
            case: max(((c, pk) for c, pk in versions if c <= round_.created), default=(None, None))[
                1
            ]
            for case, versions in history.items()
        }
        changes[round_.pk] = len({case for case, version in judged if current.get(case) != version})
    return changes


def biased_systems(*, board: BoardRuns, round_, profile: str, margin: float) -> tuple[str, ...]:
    """The systems with which the board's judge is surely biased beyond `margin` points,
    on the experts' votes of `round_` (the corrected board's bias intervals)."""
    corrected = corrected_board(board=board, round_=round_, profile=profile, bias_margin=margin)
    return tuple(row["system"] for row in corrected["bias_test"]["beyond_margin"])


def publish_state(
    *, board: BoardRuns, user=None, profile: str = Profile.HEARTBENCH.value
) -> tuple[Decision, GateEvaluation | None]:
    """The gate policy's decision on publishing `board` under `profile` (by `user`, when
    known), and the evaluation it rests on."""
    versions = {run.judge_version_id for run in board.runs}
    evaluations = version_evaluations(benchmark=board.benchmark, judge_version_ids=versions)
    rounds = {e.round_id: e.round for e in evaluations}.values()
    policy = gate_policy(benchmark=board.benchmark)
    raters = (
        set(
            Assignment.objects.filter(
                item__round_id__in=[r.pk for r in rounds],
                expert_id=user.pk,
                status=Assignment.Status.SUBMITTED,
            ).values_list("item__round_id", flat=True)
        )
        if user is not None and getattr(user, "pk", None) and rounds
        else set()
    )
    facts = {
        "rubric_changes": rubric_changes_since(board=board, rounds=rounds) if rounds else {},
        "allow_rubric_changes": policy.allow_rubric_changes,
        "policy": (policy.rule, policy.threshold),
        "publisher_rated_rounds": frozenset(raters),
        "drifted_since": drifted_since(benchmark=board.benchmark, version=board.judge_version)
        if board.judge_version is not None
        else None,
    }
    shown = Board(judge_versions=frozenset(versions), finished=board.finished)
    views = [_policy_view(e) for e in evaluations]
    decision = publish_decision(shown, views, **facts)
    if decision.allowed and policy.max_bias_points is not None:
        deciding = next(e for e in evaluations if e.pk == decision.evaluation.id)
        biased = biased_systems(
            board=board, round_=deciding.round, profile=profile, margin=policy.max_bias_points
        )
        decision = publish_decision(shown, views, **facts, biased=biased)
    chosen = decision.evaluation
    return decision, next((e for e in evaluations if chosen and e.pk == chosen.id), None)


def superseded_boards(*, snapshots) -> dict[int, GateEvaluation]:
    """Per published board that a later evaluation of its judge version failed: the first
    such failure (recorded after the evaluation the board rests on). One query."""
    snapshots = list(snapshots)
    if not snapshots:
        return {}
    failures = list(
        GateEvaluation.objects.filter(
            judge_version_id__in={s.judge_version_id for s in snapshots}, passed=False
        )
        .select_related("round")
        .order_by("created", "pk")
    )
    resting = dict(
        GateEvaluation.objects.filter(pk__in={s.gate_id for s in snapshots}).values_list(
            "pk", "created"
        )
    )
    found = {}
    for snapshot in snapshots:
        since = resting.get(snapshot.gate_id)
        later = next(
            (
                f
                for f in failures
                if f.judge_version_id == snapshot.judge_version_id
                and f.benchmark_id == snapshot.benchmark_id
                and since is not None
                and (f.created, f.pk) > (since, snapshot.gate_id)
            ),
            None,
        )
        if later is not None:
            found[snapshot.pk] = later
    return found


def board_published_as(*, board: BoardRuns, profile: str) -> LeaderboardSnapshot | None:
    """The newest published leaderboard of exactly these runs under `profile`, if any."""
    runs = set(board.run_ids)
    candidates = (
        LeaderboardSnapshot.objects.filter(
            benchmark=board.benchmark, profile=profile, runs__in=list(runs)
        )
        .distinct()
        .prefetch_related("runs")
        .order_by("-created", "-pk")
    )
    return next((s for s in candidates if {r.pk for r in s.runs.all()} == runs), None)
