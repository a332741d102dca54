"""Planning a review round before it opens: the items the fixed lower-bound rule needs, what
the sequential rule is expected to do on rounds drawn from the benchmark's own rubric sizes
(by simulation, scaled as the report scales a round), the design effect of criteria
clustered within responses (from a pilot round, or a stated default), and what those items
mean for the new-round form's sampling fraction and for the experts' time."""

import statistics
from collections import Counter

from django.db.models import Count
from django.utils.translation import gettext as _

from annotation.models import Assignment, Benchmark, Response, ReviewRound, RubricVersion
from annotation.selectors.round_decisions import round_median_item_seconds
from leaderboard.evidence.selectors.pick import agreement_evidence
from leaderboard.sequential.evidence import settled_prefix
from leaderboard.stats.planning import (
    DEFAULT_ICC,
    design_effect,
    design_effect_for,
    expert_hours,
    icc_for,
    items_for_fixed_lower_bound,
    sequential_forecast,
)
from leaderboard.stats.reasons import NO_ITEM_TIMES
from leaderboard.stats.sequential import DEFAULT_ALPHA

SIMULATED_ROUNDS = 1000


class PlanInvalid(Exception):
    pass


class PlanTooLarge(PlanInvalid):
    """The simulation would need longer rounds than the caller allows (a page must answer
    quickly; the command has no limit)."""

    def __init__(self, horizon: int) -> None:
        super().__init__(f"the simulation needs rounds of {horizon} items")
        self.horizon = horizon


def _response_sizes(benchmark: Benchmark) -> list[int]:
    """Criteria per response that a round could review: each response's case, at its
    current rubric version (failed generations are left out, as rounds leave them out)."""
    latest: dict[int, tuple[int, int]] = {}
    for case, number, criteria in (
        RubricVersion.objects.filter(case__benchmark=benchmark)
        .annotate(n=Count("criteria"))
        .values_list("case_id", "number", "n")
    ):
        if case not in latest or number > latest[case][0]:
            latest[case] = (number, criteria)
    if not any(criteria for _number, criteria in latest.values()):
        raise PlanInvalid(
            _("benchmark '%(slug)s' has no rubric criteria yet") % {"slug": benchmark.slug}
        )
    per_case = Counter(
        Response.objects.filter(case__benchmark=benchmark, failed_generation=False).values_list(
            "case_id", flat=True
        )
    )
    sizes = [
        latest[case][1] for case, count in per_case.items() if case in latest for _ in range(count)
    ]
    if not any(sizes):
        raise PlanInvalid(
            _("benchmark '%(slug)s' has no responses to review yet") % {"slug": benchmark.slug}
        )
    return [size for size in sizes if size > 0]


def _pilot(benchmark: Benchmark, name: str, judge: str) -> tuple[ReviewRound, float, float]:
    """The pilot round, and the design effect and observed agreement of its settled items
    (judged by `judge`, or the round's default judge)."""
    round_ = ReviewRound.objects.filter(benchmark=benchmark, name=name).first()
    if round_ is None:
        raise PlanInvalid(
            _("no review round '%(name)s' in benchmark '%(slug)s'")
            % {"name": name, "slug": benchmark.slug}
        )
    evidence = agreement_evidence(benchmark=benchmark, round_ref=str(round_.pk), judge=judge)
    if evidence.report is None:
        raise PlanInvalid(
            _("the pilot round has no agreement report: %(why)s") % {"why": evidence.problem}
        )
    agree, units, _most, _ratings = settled_prefix(
        evidence.units, {unit.response: 0 for unit in evidence.units}, round_.raters_per_item
    )
    return round_, design_effect(agree, units), evidence.report.percent_agreement


def _benchmark_item_seconds(benchmark: Benchmark) -> float | None:
    """The median active time of one expert on one item, over the benchmark's submitted
    items with a recorded time; None when none has one."""
    seconds = list(
        Assignment.objects.filter(
            item__round__benchmark=benchmark,
            status=Assignment.Status.SUBMITTED,
            active_seconds__gt=0,
        ).values_list("active_seconds", flat=True)
    )
    return float(statistics.median(seconds)) if seconds else None


def _warnings(*, available: int, capped: bool, fixed: int | None, shares: dict) -> list[str]:
    warnings = []
    if capped:
        warnings.append(
            _("Only %(n)s responses can be reviewed: the simulated rounds stop there.")
            % {"n": available}
        )
        if shares["continue"] >= 0.01:
            warnings.append(
                _(
                    "In %(share)s%% of the simulated rounds the sequential test had still not "
                    "decided once every response was rated."
                )
                % {"share": round(100 * shares["continue"])}
            )
    if fixed is not None and fixed > available:
        warnings.append(
            _("The fixed sample (%(items)s items) is more than the %(n)s responses available.")
            % {"items": fixed, "n": available}
        )
    return warnings


def gate_plan(
    *,
    benchmark: Benchmark,
    expected: float,
    threshold: float,
    alpha: float = DEFAULT_ALPHA,
    power: float = 0.8,
    pilot_round: str = "",
    pilot_judge: str = "",
    raters: int = 3,
    seed: int = 20251,
    max_horizon: int | None = None,
) -> dict:
    if not 0.0 < threshold < 1.0 or not 0.0 < expected < 1.0:
        raise PlanInvalid("the expected agreement and the threshold lie strictly between 0 and 1")
    if not 0.0 < alpha < 0.5 or not 0.5 <= power < 1.0:
        raise PlanInvalid("alpha lies in (0, 0.5) and power in [0.5, 1)")
    if raters < 1:
        raise PlanInvalid(_("raters per item must be at least 1"))
    sizes = _response_sizes(benchmark)
    available = len(sizes)
    mean_units = sum(sizes) / available
    pilot, observed, item_seconds = None, None, None
    if pilot_round:
        pilot, deff, observed = _pilot(benchmark, pilot_round, pilot_judge)
        icc = icc_for(mean_units, deff)
        item_seconds = round_median_item_seconds(round_=pilot)
    else:
        icc = DEFAULT_ICC
        deff = design_effect_for(mean_units, icc)
    if item_seconds is None:
        item_seconds = _benchmark_item_seconds(benchmark)
    fixed = items_for_fixed_lower_bound(
        expected=expected,
        threshold=threshold,
        units_per_item=mean_units,
        power=power,
        confidence=1.0 - alpha,
        deff=deff,
    )
    # Simulated rounds long enough for the sequential rule to decide (or to show it rarely
    # does): ten times the fixed sample, or 2,000 items when there is none; never more than
    # the responses a round could review.
    wanted = max(50, 10 * fixed) if fixed else 2000
    horizon = min(wanted, available)
    if max_horizon is not None and horizon > max_horizon:
        raise PlanTooLarge(horizon)
    forecast = sequential_forecast(
        expected=expected,
        threshold=threshold,
        sizes=sizes,
        icc=icc,
        horizon=horizon,
        alpha=alpha,
        power=power,
        rounds=SIMULATED_ROUNDS,
        seed=seed,
    )
    capped = wanted > available
    fraction = lambda items: None if items is None else min(1.0, items / available)  # noqa: E731
    ratings = lambda items: None if items is None else items * raters  # noqa: E731
    hours = {
        f"expert_hours_{name}": expert_hours(items, raters, item_seconds)
        for name, items in (
            ("fixed", fixed),
            ("sequential_median", forecast.median),
            ("sequential_p90", forecast.p90),
        )
    }
    return {
        "benchmark": benchmark.slug,
        "expected": expected,
        "threshold": threshold,
        "alpha": alpha,
        "power": power,
        "responses_available": available,
        "units_per_item": round(mean_units, 2),
        "criteria_per_item": {"mean": mean_units, "min": min(sizes), "max": max(sizes)},
        "icc": icc,
        "design_effect": deff,
        "design_effect_source": "pilot" if pilot else "default",
        "pilot_round": pilot_round or None,
        "pilot_judge": pilot_judge or None,
        "pilot_agreement": observed,
        "items_fixed": fixed,
        "items_sequential_median": forecast.median,
        "items_sequential_p90": forecast.p90,
        "items_sequential_at_power": forecast.at_power,
        "likely_decision": forecast.likely,
        "sequential_shares": forecast.shares,
        "sequential_pass_share": forecast.shares["pass"],
        "sequential_simulated_rounds": forecast.rounds,
        "sequential_horizon": horizon,
        "capped": capped,
        "warnings": _warnings(
            available=available, capped=capped, fixed=fixed, shares=forecast.shares
        ),
        "raters_per_item": raters,
        "sampling_fraction_fixed": fraction(fixed),
        "sampling_fraction_sequential_median": fraction(forecast.median),
        "sampling_fraction_sequential_p90": fraction(forecast.p90),
        "ratings_fixed": ratings(fixed),
        "ratings_sequential_median": ratings(forecast.median),
        "ratings_sequential_p90": ratings(forecast.p90),
        "median_item_seconds": item_seconds,
        **hours,
        "expert_hours_reason": None if item_seconds is not None else NO_ITEM_TIMES,
    }
