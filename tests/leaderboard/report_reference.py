"""Agreement reports of every shape, from fixed units (no database): plain, weighted with
and without a weighted interval, under each gate rule with a history, a chance floor and a
sequential entry, without any judged unit, and with the calibration guard's exclusions.
`agreement_report_reference.json` holds their JSON: the keys, their order and every value a
report gives its pages, its API, its commands and its bundles."""

import random
from pathlib import Path

from leaderboard.gate.history import round_tallies
from leaderboard.report.agreement import FAILED, NOT_JUDGED, OTHER_VERSION, GateRule, Unit
from leaderboard.sequential.evidence import sequential_block

REFERENCE = Path(__file__).with_name("agreement_report_reference.json")
RESAMPLES = 200


def reference_units(seed: int = 7) -> list[Unit]:
    """Ten dialogues of one to three responses, six criteria each, rated by up to four raters
    (ties, units without votes and units short of raters included), and a judge that now and
    then has no verdict, for each of the three reasons."""
    rng = random.Random(seed)
    units, response = [], 0
    for case in range(10):
        for system in ("A", "B", "C")[: 1 + case % 3]:
            response += 1
            for criterion in range(1, 7):
                raters = rng.sample(["r1", "r2", "r3", "r4"], rng.choice([0, 1, 2, 3, 3, 3, 3]))
                truth = rng.random() < 0.55
                votes = tuple(
                    (rater, truth if rng.random() < 0.8 else not truth) for rater in raters
                )
                judge = truth if rng.random() < 0.75 else not truth
                no_verdict = FAILED
                if rng.random() < 0.1:
                    judge, no_verdict = None, rng.choice([FAILED, NOT_JUDGED, OTHER_VERSION])
                units.append(
                    Unit(
                        response=response,
                        case=f"c{case}",
                        criterion=criterion,
                        ability=("empathy", "safety", "ethics")[criterion % 3],
                        category=("", "grief", "anxiety")[case % 3],
                        difficulty=("easy", "hard")[case % 2],
                        scenario=("", "family")[criterion % 2],
                        system=system,
                        judge=judge,
                        votes=votes,
                        no_verdict=no_verdict,
                    )
                )
    return units


def ranks_of(units: list[Unit]) -> dict[int, int]:
    return {response: rank for rank, response in enumerate(sorted({u.response for u in units}))}


def weights_of(units: list[Unit]) -> list[float]:
    """Unequal chances: system A's responses drawn with probability 1/2, the others' 1/5."""
    return [2.0 if unit.system == "A" else 5.0 for unit in units]


def history_of(units: list[Unit], raters: int = 3, unequal: bool = False) -> list:
    """An earlier round (the first half of the responses) and this one, asking `raters`
    raters per item (3: neither is complete; 1: the units with votes settle)."""
    ranks = ranks_of(units)
    voted = [u for u in units if u.votes] if raters == 1 else units
    half = [u for u in voted if u.response <= len(ranks) // 2]
    return [
        round_tallies(half, ranks, round_id=1, name="R0", raters_per_item=raters),
        round_tallies(
            voted, ranks, round_id=2, name="R1", raters_per_item=raters, unequal_chances=unequal
        ),
    ]


def sequential_of(units: list[Unit], threshold: float, weights=None) -> dict:
    return sequential_block(
        units, ranks_of(units), raters_per_item=3, threshold=threshold, weights=weights
    )


def calibration_of(units: list[Unit]) -> set[int]:
    """The first three responses: a round's calibration part."""
    return set(sorted({u.response for u in units})[:3])


def report_arguments() -> dict[str, tuple[list[Unit], dict]]:
    """Each shape's units and `agreement_report` arguments, by name."""
    units = reference_units()
    one_case = [u for u in units if u.case == "c2"]
    nothing_judged = [u._replace(judge=None, no_verdict=NOT_JUDGED) for u in units]
    weights = weights_of(units)
    sampling = {"design": "by_system", "probabilities_recorded": True}
    return {
        "plain": (units, {"resamples": RESAMPLES}),
        "lower_bound": (
            units,
            {
                "rule": GateRule.LOWER_BOUND,
                "threshold": 0.6,
                "resamples": RESAMPLES,
                "short_of": 2,
                "min_raters": 2,
                "history": history_of(units),
                "chance_floor": ("gwet_ac1", 0.1),
                "sequential": sequential_of(units, 0.6),
            },
        ),
        "point_history": (
            units,
            {"resamples": RESAMPLES, "history": history_of(units), "min_raters": 3},
        ),
        "sequential": (
            units,
            {
                "rule": GateRule.SEQUENTIAL,
                "threshold": 0.6,
                "resamples": RESAMPLES,
                "sequential": sequential_of(units, 0.6),
                "history": history_of(units),
            },
        ),
        "lower_bound_complete": (
            units,
            {
                "rule": GateRule.LOWER_BOUND,
                "threshold": 0.5,
                "resamples": RESAMPLES,
                "history": history_of(units, raters=1),
                "chance_floor": ("cohen_kappa", 0.0),
            },
        ),
        "sequential_unequal": (
            units,
            {
                "rule": GateRule.SEQUENTIAL,
                "resamples": RESAMPLES,
                "weights": weights,
                "sampling": sampling,
                "sequential": sequential_of(units, 0.75, weights),
                "history": history_of(units, raters=1, unequal=True),
            },
        ),
        "sequential_alone": (
            units,
            {
                "rule": GateRule.SEQUENTIAL,
                "threshold": 0.6,
                "resamples": RESAMPLES,
                "sequential": sequential_of(units, 0.6),
            },
        ),
        "weighted": (
            units,
            {
                "resamples": RESAMPLES,
                "weights": weights,
                "sampling": sampling,
                "sequential": sequential_of(units, 0.75, weights),
                "history": history_of(units),
            },
        ),
        "weighted_one_dialogue": (
            one_case,
            {"resamples": RESAMPLES, "weights": weights_of(one_case), "sampling": sampling},
        ),
        "equal_weights": (units, {"resamples": RESAMPLES, "weights": [3.0] * len(units)}),
        "nothing_judged": (nothing_judged, {"resamples": RESAMPLES, "history": history_of(units)}),
        "no_units": ([], {"resamples": RESAMPLES}),
    }


GUARDED = {
    # name: (the shape it guards, how many items the round has)
    "calibration_held_out": ("point_history", 25),
    "calibration_leak": ("point_history", 3),
}
