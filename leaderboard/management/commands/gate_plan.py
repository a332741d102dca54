import json

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.management.cli import benchmark_named
from leaderboard.sequential.selectors.round_plan import PlanInvalid, gate_plan
from leaderboard.stats.threshold import AGREEMENT_GATE


def _hours(value: float | None) -> str:
    return "" if value is None else f", about {value:.1f} expert hours"


class Command(BaseCommand):
    help = (
        "Plan a review round: the items a fixed sample needs for the lower-bound rule, the "
        "items the sequential rule is expected to use and the decision it is likely to reach "
        "(simulated on the benchmark's own rubric sizes), the design effect, and what the "
        "items mean as a sampling fraction and in expert time."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--expected", type=float, required=True, help="e.g. 0.85")
        parser.add_argument("--threshold", type=float, default=AGREEMENT_GATE)
        parser.add_argument("--pilot-round", default="", help="estimate the design effect")
        parser.add_argument("--pilot-judge", default="", help="the judge of the pilot round")
        parser.add_argument("--raters", type=int, default=3, help="raters per item")
        parser.add_argument("--alpha", type=float, default=0.05)
        parser.add_argument("--power", type=float, default=0.8)
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    @no_translations
    def handle(self, *args, **opts) -> None:
        benchmark = benchmark_named(opts["benchmark"])
        try:
            plan = gate_plan(
                benchmark=benchmark,
                expected=opts["expected"],
                threshold=opts["threshold"],
                alpha=opts["alpha"],
                power=opts["power"],
                pilot_round=opts["pilot_round"],
                pilot_judge=opts["pilot_judge"],
                raters=opts["raters"],
            )
        except PlanInvalid as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.stdout.write(json.dumps(plan, ensure_ascii=False))
            return
        self.stdout.write("\n".join(self._lines(plan)))

    def _lines(self, plan: dict) -> list[str]:
        per_item = plan["criteria_per_item"]
        source = (
            f"from {plan['pilot_round']!r}"
            if plan["pilot_round"]
            else f"default, ICC {plan['icc']}"
        )
        fixed = plan["items_fixed"]
        shares = plan["sequential_shares"]
        lines = [
            f"{plan['responses_available']} responses, {per_item['mean']:.2f} criteria per item "
            f"({per_item['min']} to {per_item['max']}), design effect "
            f"{plan['design_effect']:.3f} ({source})",
            (
                f"fixed sample, lower-bound rule, power {plan['power']:.0%}: {fixed} items "
                f"(sampling fraction {plan['sampling_fraction_fixed']:.1%}, "
                f"{plan['ratings_fixed']} ratings{_hours(plan['expert_hours_fixed'])})"
                if fixed
                else "fixed sample: no size is enough when the expected agreement is not "
                "above the threshold"
            ),
            f"sequential rule: likely decision {plan['likely_decision']} (pass "
            f"{shares['pass']:.0%}, fail {shares['fail']:.0%}, undecided "
            f"{shares['continue']:.0%} of {plan['sequential_simulated_rounds']} simulated "
            f"rounds); median {plan['items_sequential_median']} items (sampling fraction "
            f"{plan['sampling_fraction_sequential_median']:.1%}, "
            f"{plan['ratings_sequential_median']} ratings"
            f"{_hours(plan['expert_hours_sequential_median'])}), p90 "
            f"{plan['items_sequential_p90']}",
        ]
        if plan["expert_hours_reason"]:
            lines.append("expert hours: undefined, no item has a recorded rating time")
        lines += [f"warning: {warning}" for warning in plan["warnings"]]
        return lines
