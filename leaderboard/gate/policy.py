"""The gate's policy: may this leaderboard be published, and on which evidence? One pure
function, used by the page, the API and the commands alike (no Django here).

- A board is published only from finished runs of one judge version.
- That version needs a passing gate evaluation on this benchmark. Evaluations count in the
  order of their rounds: the newest round evaluated decides, and a failure on it stands.
  Each evaluation already decides on the version's whole history of rounds
  (leaderboard.gate.history), so a pass overturns a failure only when the pooled evidence
  passes.
- The deciding evaluation must have been made under the policy in force (its rule, and at
  least its threshold), and not rest on a round the person publishing rated in.
- If the board judged rubric versions that changed since the deciding round, publishing is
  refused, unless the benchmark allows it; the board then carries the count of changed
  cases as a visible notice.
- With a bias condition, a judge surely biased beyond it with some system is refused.
- A judge version the drift test flagged on the benchmark's anchors needs an evaluation
  recorded after the flag (leaderboard.stats.drift).
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class Refusal(StrEnum):
    NO_RUNS = "no_runs"
    RUNS_UNFINISHED = "runs_unfinished"
    MIXED_VERSIONS = "mixed_versions"
    NOT_EVALUATED = "not_evaluated"
    FAILED = "failed"
    RUBRICS_CHANGED = "rubrics_changed"
    # The deciding evaluation was made under a rule or threshold other than the policy's now.
    POLICY_CHANGED = "policy_changed"
    # The person publishing rated in the deciding round: the evidence is not independent.
    PUBLISHER_RATED = "publisher_rated"
    # The experts' votes show the judge surely more lenient or strict than the policy
    # allows with some system (the corrected board's bias interval, leaderboard.corrected).
    JUDGE_BIASED = "judge_biased"
    # The drift test flagged the version on the anchors after the deciding evaluation.
    JUDGE_DRIFTED = "judge_drifted"


@dataclass(frozen=True)
class Evaluation:
    """A recorded gate evaluation, as the policy sees it."""

    id: int
    judge_version: int
    round_id: int
    round_opened: datetime
    recorded: datetime
    passed: bool
    rule: str = ""
    threshold: float = 0.0


@dataclass(frozen=True)
class Board:
    """What is to be published: the judge versions of its runs and whether all finished."""

    judge_versions: frozenset[int]
    finished: bool


@dataclass(frozen=True)
class Decision:
    allowed: bool
    refusal: Refusal | None
    evaluation: Evaluation | None  # the evaluation the decision rests on, if any
    rubric_changes: int = 0  # cases changed since the deciding round (a notice if allowed)
    biased: tuple[str, ...] = ()  # systems beyond the policy's bias margin, when refused so
    drifted_since: datetime | None = None  # when the drift test flagged the version


def deciding_evaluation(evaluations: Iterable[Evaluation], judge_version: int) -> Evaluation | None:
    """The evaluation that decides for `judge_version`: on the newest round it was evaluated
    on (by opening time, then id), a failure if there is one, else the newest pass."""
    mine = [e for e in evaluations if e.judge_version == judge_version]
    if not mine:
        return None
    newest = max((e.round_opened, e.round_id) for e in mine)
    on_newest = [e for e in mine if (e.round_opened, e.round_id) == newest]
    failures = [e for e in on_newest if not e.passed]
    return max(failures or on_newest, key=lambda e: (e.recorded, e.id))


def publish_decision(
    board: Board,
    evaluations: Iterable[Evaluation],
    *,
    rubric_changes: Mapping[int, int],
    allow_rubric_changes: bool,
    policy: tuple[str, float] | None = None,
    publisher_rated_rounds: frozenset[int] = frozenset(),
    biased: tuple[str, ...] = (),
    drifted_since: datetime | None = None,
) -> Decision:
    """Whether `board` may be published. `rubric_changes` gives, per round id, how many of
    the board's cases were judged on a rubric version other than the one current when that
    round was opened. `policy` is the (rule, threshold) in force: an evaluation made under
    another rule, or a lower threshold, no longer allows a new publication.
    `publisher_rated_rounds` are the rounds the person publishing rated in; `biased` the
    systems with which the judge is surely biased beyond the policy's margin;
    `drifted_since` when the drift test flagged the version, if it did."""
    if not board.judge_versions:
        return Decision(False, Refusal.NO_RUNS, None)
    if len(board.judge_versions) > 1:
        return Decision(False, Refusal.MIXED_VERSIONS, None)
    if not board.finished:
        return Decision(False, Refusal.RUNS_UNFINISHED, None)
    (version,) = board.judge_versions
    evaluation = deciding_evaluation(evaluations, version)
    if evaluation is None:
        return Decision(False, Refusal.NOT_EVALUATED, None)
    if not evaluation.passed:
        return Decision(False, Refusal.FAILED, evaluation)
    if policy is not None and (evaluation.rule != policy[0] or evaluation.threshold < policy[1]):
        return Decision(False, Refusal.POLICY_CHANGED, evaluation)
    if drifted_since is not None and evaluation.recorded <= drifted_since:
        return Decision(False, Refusal.JUDGE_DRIFTED, evaluation, drifted_since=drifted_since)
    if evaluation.round_id in publisher_rated_rounds:
        return Decision(False, Refusal.PUBLISHER_RATED, evaluation)
    changed = rubric_changes.get(evaluation.round_id, 0)
    if changed and not allow_rubric_changes:
        return Decision(False, Refusal.RUBRICS_CHANGED, evaluation, changed)
    if biased:
        return Decision(False, Refusal.JUDGE_BIASED, evaluation, changed, tuple(biased))
    return Decision(True, None, evaluation, changed)
