import json

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.management.commands.agreement_report import benchmark_named
from leaderboard.selectors.round_plan import PlanInvalid, gate_plan


class Command(BaseCommand):
    help = (
        "Plan a review round: the items a fixed sample needs for the lower-bound rule, the "
        "items the sequential rule is expected to use (simulated), and the design effect."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--expected", type=float, required=True, help="e.g. 0.85")
        parser.add_argument("--threshold", type=float, default=0.75)
        parser.add_argument("--pilot-round", default="", help="estimate the design effect")
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
            )
        except PlanInvalid as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.stdout.write(json.dumps(plan, ensure_ascii=False))
            return
        fixed = plan["items_fixed"]
        self.stdout.write(
            f"{plan['units_per_item']} criteria per item, design effect {plan['design_effect']}"
            + (f" (from {plan['pilot_round']!r})" if plan["pilot_round"] else " (no pilot)")
            + "\n"
            + (
                f"fixed sample, lower-bound rule, power {plan['power']:.0%}: {fixed} items\n"
                if fixed
                else "fixed sample: no size is enough when the expected agreement is not "
                "above the threshold\n"
            )
            + f"sequential rule: median {plan['items_sequential_median']} items, p90 "
            f"{plan['items_sequential_p90']} ({plan['sequential_pass_share']:.0%} of "
            f"{plan['sequential_simulated_rounds']} simulated rounds pass)"
        )
