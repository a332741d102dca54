"""The weighted share of a gate evaluation on a round whose items were drawn with unequal
chances, re-derived from the bundle alone (no Django): each unit weighs the inverse of its
item's recorded inclusion probability, as the report was given them; the weighted share's
interval (`weighted_95`) and the plain share kept beside it are compared with the claims."""

from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.checks import AGREEMENT, Verification, same_tree
from leaderboard.report.agreement import Unit


def unit_weights(items: list[dict], units: list[Unit]) -> list[float] | None:
    """Each unit's weight, the inverse of its item's recorded inclusion probability, as
    the report was given them (`selectors.agreement.sampling_weights`); None when some item
    has none recorded."""
    chances = {int(item["item"]): item.get("inclusion_probability") for item in items}
    if not chances or any(value in (None, "") or not float(value) for value in chances.values()):
        return None
    return [1.0 / float(chances[unit.response]) for unit in units]


def plain_share(claimed: dict, carries_chances: bool) -> dict:
    """The claims as the bundle can recompute them. A bundle whose items carry their
    inclusion probabilities recomputes the weighted share itself; one written before they
    did cannot, and checks the plain share the report keeps beside the weighted one."""
    sampling = claimed.get("sampling") or {}
    if carries_chances or not sampling.get("weights_applied"):
        return claimed
    return {**claimed, "percent_agreement": sampling.get("percent_agreement_unweighted")}


def check_weighted(context, report: dict, result: Verification) -> None:
    """The weighted share's interval and the plain share kept beside it."""
    claimed = context.claimed
    recomputed = report.get("sampling") or {}
    pairs = (
        ("weighted_95", claimed.get("weighted_95"), report.get("weighted_95")),
        (
            "the unweighted share",
            (claimed.get("sampling") or {}).get("percent_agreement_unweighted"),
            recomputed.get("percent_agreement_unweighted"),
        ),
    )
    for name, said, found in pairs:
        if (said is not None or found is not None) and not same_tree(said, found):
            result.fail(
                AGREEMENT,
                context.where,
                f"{name} {said!r} is claimed, {found!r} is recomputed from {context.source} "
                f"weighted by the inclusion probabilities in {context.prefix}{layout.ITEMS}",
            )
