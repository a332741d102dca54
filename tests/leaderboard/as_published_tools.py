"""A published board's bundle, built before and after the world moved on: the demo board
published (corrected by a round where asked), rated items, and the comparison of two
bundles member by member."""

import io

from django.contrib.auth import get_user_model

from annotation.models import Assignment, Benchmark, ReviewRound
from annotation.services.review_assignment import assignment_next
from annotation.services.review_votes import VoteInput, assignment_submit
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.exports.bundles.build import bundle_write
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.gate.services.evaluation import leaderboard_publish
from leaderboard.management.commands.load_demo import DEMO_JUDGE
from leaderboard.models import LeaderboardSnapshot
from tests.leaderboard.bundle_tools import read_files


def coordinator():
    return get_user_model().objects.get(username="coordinator")


def demo():
    return Benchmark.objects.get(slug="demo")


def publish(corrected_by: ReviewRound | None = None) -> LeaderboardSnapshot:
    return leaderboard_publish(
        board=board_runs(benchmark=demo(), judge=DEMO_JUDGE),
        profile="heartbench",
        user=coordinator(),
        corrected_by=corrected_by,
    )


def bundle(snapshot: LeaderboardSnapshot) -> bytes:
    out = io.BytesIO()
    bundle_write(LeaderboardSnapshot.objects.get(pk=snapshot.pk), out)
    return out.getvalue()


def rate(round_: ReviewRound, expert, items: int, *, flip: int = 0) -> list[Assignment]:
    """`expert` takes and submits up to `items` items of the round, meeting every criterion
    but the first `flip` positions' (a rater's own reading)."""
    done = []
    for _ in range(items):
        assignment = assignment_next(expert=expert, round_=round_)
        if assignment is None:
            break
        done.append(submit(assignment, flip=flip))
    return done


def submit(assignment: Assignment, *, flip: int = 0) -> Assignment:
    assignment.refresh_from_db()
    criteria = assignment.item.rubric_version.criteria.order_by("position")
    assignment_submit(
        assignment=assignment,
        votes=[VoteInput(criterion_id=c.pk, hit=c.position > flip, note="") for c in criteria],
        comment="",
        active_seconds=30,
        base_revision=assignment.revision,
    )
    assignment.refresh_from_db()
    return assignment


def experts(*names: str) -> list:
    return list(get_user_model().objects.filter(username__in=names).order_by("username"))


def differing(before: bytes, after: bytes) -> list[str]:
    """The members of two bundles that differ, or are in one only."""
    first, second = read_files(before), read_files(after)
    return sorted(name for name in set(first) | set(second) if first.get(name) != second.get(name))


def assert_same_evidence(before: bytes, after: bytes) -> None:
    """The second bundle is the first, byte for byte, and both verify."""
    changed = differing(before, after)
    assert changed == [], f"changed since publication: {changed}"
    assert before == after, "the manifest or the signature changed"
    for blob in (before, after):
        problems = verify_bundle(io.BytesIO(blob)).as_dict()["problems"]
        assert problems == [], problems
