import json

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.exports.bundles.rejudge import RejudgeRefused, rejudge


class Command(BaseCommand):
    help = (
        "Re-judge from an evidence bundle: send each recorded judge call again to an endpoint "
        "and model, and compare the verdicts per unit with the recorded ones."
    )
    requires_system_checks: list = []

    def add_arguments(self, parser) -> None:
        parser.add_argument("bundle")
        parser.add_argument("--base-url", required=True)
        parser.add_argument("--model", default="", help="default: each run's own model")
        parser.add_argument("--api-key-env", default="", help="variable holding the API key")
        parser.add_argument("--timeout", type=float, default=120.0)
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    @no_translations
    def handle(self, *args, bundle, **opts) -> None:
        try:
            summary = rejudge(
                bundle,
                base_url=opts["base_url"],
                model=opts["model"],
                api_key_env=opts["api_key_env"],
                timeout=opts["timeout"],
            )
        except (RejudgeRefused, OSError) as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.stdout.write(json.dumps(summary, ensure_ascii=False))
            return
        agreement = summary["agreement"]
        self.stdout.write(
            f"{summary['calls']} calls sent again ({summary['failed_calls']} failed): "
            f"{summary['agreeing']} of {summary['units']} units give the recorded verdict"
            + (f" ({100 * agreement:.1f}%)" if agreement is not None else "")
        )
        for difference in summary["differences"]:
            self.stdout.write(f"  differs: {json.dumps(difference, ensure_ascii=False)}")
