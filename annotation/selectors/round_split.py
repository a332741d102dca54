"""A review round's calibration/held-out split, as the round page and a bundle show it."""

from annotation.models import ReviewItem, ReviewRound


def round_split(*, round_: ReviewRound, responses: set[int] | None = None) -> dict | None:
    """The split's share and seed, the count of items in each part and the responses of the
    calibration part (of the items of `responses` only, when given: the round at a moment);
    None when the round has no split. One query."""
    if not round_.calibration_share:
        return None
    calibration, held_out = [], 0
    for response, part in ReviewItem.objects.filter(round=round_).values_list(
        "response_id", "part"
    ):
        if responses is not None and response not in responses:
            continue
        if part == ReviewItem.Part.CALIBRATION:
            calibration.append(response)
        elif part == ReviewItem.Part.HELD_OUT:
            held_out += 1
    return {
        "calibration_share": round_.calibration_share,
        "split_seed": round_.split_seed,
        "calibration_items": len(calibration),
        "held_out_items": held_out,
        "calibration_responses": sorted(calibration),
    }
