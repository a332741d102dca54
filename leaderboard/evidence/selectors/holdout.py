"""Which of a round's responses a judge version may not be judged on: the round's
calibration part, when the version was derived from it (leaderboard.selection.calibration_guard)."""

from annotation.models import ReviewItem, ReviewRound
from judging.models import JudgeVersion


def derived_on_round(version: JudgeVersion | None, round_: ReviewRound | None) -> bool:
    return (
        version is not None
        and round_ is not None
        and version.derived_from_round_id is not None
        and version.derived_from_round_id == round_.pk
    )


def calibration_responses(*, round_: ReviewRound) -> set[int]:
    """The responses of the round's calibration part. One query."""
    return set(
        ReviewItem.objects.filter(round=round_, part=ReviewItem.Part.CALIBRATION).values_list(
            "response_id", flat=True
        )
    )
