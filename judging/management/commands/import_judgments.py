from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._importing import run_import
from judging.services.healthbench_judgments import (
    healthbench_grader_lines,
    parse_healthbench_judgment,
)
from judging.services.judgments_import import (
    BenchmarkNotFound,
    SystemNotFound,
    judgments_import,
    parse_judgment,
)

FORMATS = {"heartbench": parse_judgment, "healthbench": parse_healthbench_judgment}


class Command(BaseCommand):
    help = (
        "Import a HeartBench scored file (question_id, score_detail, score_reason per line) "
        "as one finished judge run of one system's responses; with --format healthbench, "
        "HealthBench's grader output (prompt_id, rubric_items with criteria_met and explanation)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path")
        parser.add_argument("--benchmark", required=True, help="benchmark slug")
        parser.add_argument("--system", required=True, help="name of the judged system")
        parser.add_argument(
            "--judge", required=True, help="judge name (a judge configuration, created if new)"
        )
        parser.add_argument(
            "--format",
            choices=sorted(FORMATS),
            default="heartbench",
            help="the file's format: HeartBench's scored file (the default) or HealthBench's "
            "grader output",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON summary")

    def handle(
        self, *args, path, benchmark, system, judge, json, format="heartbench", **options
    ) -> None:
        try:
            summary = run_import(
                self,
                path,
                json,
                lambda chunks: judgments_import(
                    chunks=self.lines(chunks, format),
                    benchmark_slug=benchmark,
                    system_name=system,
                    judge_name=judge,
                    parse=FORMATS[format],
                ),
            )
        except (BenchmarkNotFound, SystemNotFound) as exc:
            raise CommandError(str(exc)) from exc
        if not json:
            self.stdout.write(
                f"run {summary['run']}: {summary['tasks']} judged responses, "
                f"{summary['verdicts']} verdicts"
            )
            for warning in summary["warnings"]:
                self.stderr.write(f"warning: {warning}")

    def lines(self, chunks, format: str):
        """HealthBench's grader output may also be simple-evals' whole-run file."""
        if format != "healthbench":
            return chunks
        lines, whole_run = healthbench_grader_lines(chunks)
        if whole_run:
            self.stderr.write(
                "note: read as simple-evals' whole-run file (metadata.example_level_metadata); "
                "'line N' names its Nth graded example"
            )
        return lines
