from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._importing import run_import
from judging.interop.inspect_import import inspect_log_import
from judging.services.judgments_import import BenchmarkNotFound


class Command(BaseCommand):
    help = (
        "Import an Inspect AI eval log (.eval or .json) of a judging task as one finished "
        "judge run: each sample a response (metadata question_id and system), its score the "
        "verdict per criterion position; the log's model and generation settings become the "
        "judge version's. Problems are named by the Nth sample as 'line N'."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path")
        parser.add_argument("--benchmark", required=True, help="benchmark slug")
        parser.add_argument(
            "--judge", required=True, help="judge name (a judge configuration, created if new)"
        )
        parser.add_argument(
            "--scorer", default=None, help="the scorer whose scores are the verdicts (when several)"
        )
        parser.add_argument(
            "--system", default=None, help="the judged system, for samples whose metadata has none"
        )
        parser.add_argument("--json", action="store_true", help="print one JSON summary")

    def handle(self, *args, path, benchmark, judge, scorer, system, json, **options) -> None:
        try:
            summary = run_import(
                self,
                path,
                json,
                lambda chunks: inspect_log_import(
                    data=chunks.read(),
                    benchmark_slug=benchmark,
                    judge_name=judge,
                    scorer=scorer,
                    system_name=system,
                ),
            )
        except BenchmarkNotFound as exc:
            raise CommandError(str(exc)) from exc
        if not json:
            self.stdout.write(
                f"run {summary['run']}: {summary['tasks']} judged responses, "
                f"{summary['verdicts']} verdicts"
            )
            for warning in summary["warnings"]:
                self.stderr.write(f"warning: {warning}")
