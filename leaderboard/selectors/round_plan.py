"""Planning a review round before it opens: how many items the fixed lower-bound rule
needs, how many the sequential rule is expected to use (by simulation), and the design
effect of criteria clustered within responses, from a pilot round when there is one."""

import math
import statistics

import numpy as np
from django.db.models import Count
from django.utils.translation import gettext as _

from annotation.models import Benchmark, Criterion, ReviewRound
from leaderboard.selectors.evidence import agreement_evidence
from leaderboard.sequential_evidence import settled_prefix
from leaderboard.stats.planning import design_effect, items_for_fixed_lower_bound
from leaderboard.stats.sequential import DEFAULT_ALPHA, simulated_decisions

SIMULATED_ROUNDS = 1000


class PlanInvalid(Exception):
    pass


class PlanTooLarge(PlanInvalid):
    """The simulation would need longer rounds than the caller allows (a page must answer
    quickly; the command has no limit)."""

    def __init__(self, horizon: int) -> None:
        super().__init__(f"the simulation needs rounds of {horizon} items")
        self.horizon = horizon


def _units_per_item(benchmark: Benchmark) -> float:
    """The mean criteria per rubric version of the benchmark's cases."""
    counts = Criterion.objects.filter(rubric_version__case__benchmark=benchmark).aggregate(
        criteria=Count("pk"), versions=Count("rubric_version", distinct=True)
    )
    if not counts["versions"]:
        raise PlanInvalid(
            _("benchmark '%(slug)s' has no rubric criteria yet") % {"slug": benchmark.slug}
        )
    return counts["criteria"] / counts["versions"]


def _pilot(benchmark: Benchmark, name: str) -> tuple[float, float]:
    """(design effect, observed agreement) of a pilot round's settled items."""
    round_ = ReviewRound.objects.filter(benchmark=benchmark, name=name).first()
    if round_ is None:
        raise PlanInvalid(
            _("no review round '%(name)s' in benchmark '%(slug)s'")
            % {"name": name, "slug": benchmark.slug}
        )
    evidence = agreement_evidence(benchmark=benchmark, round_ref=str(round_.pk))
    if evidence.report is None:
        raise PlanInvalid(
            _("the pilot round has no agreement report: %(why)s") % {"why": evidence.problem}
        )
    agree, units, _most, _ratings = settled_prefix(
        evidence.units, {unit.response: 0 for unit in evidence.units}, round_.raters_per_item
    )
    return design_effect(agree, units), evidence.report["percent_agreement"]


def gate_plan(
    *,
    benchmark: Benchmark,
    expected: float,
    threshold: float,
    alpha: float = DEFAULT_ALPHA,
    power: float = 0.8,
    pilot_round: str = "",
    seed: int = 20251,
    max_horizon: int | None = None,
) -> dict:
    if not 0.0 < threshold < 1.0 or not 0.0 < expected < 1.0:
        raise PlanInvalid("the expected agreement and the threshold lie strictly between 0 and 1")
    if not 0.0 < alpha < 0.5 or not 0.5 <= power < 1.0:
        raise PlanInvalid("alpha lies in (0, 0.5) and power in [0.5, 1)")
    units = _units_per_item(benchmark)
    deff, observed = 1.0, None
    if pilot_round:
        deff, observed = _pilot(benchmark, pilot_round)
    fixed = items_for_fixed_lower_bound(
        expected=expected, threshold=threshold, units_per_item=units, power=power, deff=deff
    )
    # Simulated rounds long enough for the sequential rule to decide (or to show it rarely
    # does): ten times the fixed sample, or 2,000 items when there is none.
    horizon = max(50, 10 * fixed) if fixed else 2000
    if max_horizon is not None and horizon > max_horizon:
        raise PlanTooLarge(horizon)
    per_item = max(1, round(units))
    icc = (deff - 1.0) / (per_item - 1.0) if per_item > 1 else 0.0
    spread = math.sqrt(max(0.0, icc) * expected * (1.0 - expected))
    decision, used = simulated_decisions(
        true_agreement=expected,
        threshold=threshold,
        items=horizon,
        units_per_item=per_item,
        rounds=SIMULATED_ROUNDS,
        seed=seed,
        alpha=alpha,
        within_item_sd=spread,
    )
    return {
        "benchmark": benchmark.slug,
        "expected": expected,
        "threshold": threshold,
        "alpha": alpha,
        "power": power,
        "units_per_item": round(units, 2),
        "design_effect": round(deff, 3),
        "pilot_round": pilot_round or None,
        "pilot_agreement": observed,
        "items_fixed": fixed,
        "items_sequential_median": int(statistics.median(used.tolist())),
        "items_sequential_p90": int(np.percentile(used, 90)),
        "sequential_pass_share": float(np.mean(decision == 1)),
        "sequential_simulated_rounds": SIMULATED_ROUNDS,
        "sequential_horizon": horizon,
    }
