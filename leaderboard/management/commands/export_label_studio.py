import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils import translation

from annotation.models import ReviewRound
from judging.models import JudgeRun
from leaderboard.interop.label_studio_export import label_studio_export
from leaderboard.management.cli import add_json_argument, write_result

TASKS_FILE, CONFIG_FILE = "tasks.json", "label_config.xml"


class Command(BaseCommand):
    help = (
        "Export a review round as Label Studio tasks: OUT/tasks.json (each rater's votes as "
        "annotations under their pseudonym, each judge run's verdicts as predictions, "
        "reference answers as ground truth) and OUT/label_config.xml (one Choices control "
        "per criterion position)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("out", help="a directory (created if missing)")
        parser.add_argument("--round", required=True, dest="round_name")
        parser.add_argument(
            "--judge-run",
            type=int,
            action="append",
            default=None,
            dest="runs",
            help="a judge run whose verdicts become predictions (repeatable; default: the "
            "newest finished run of each judge version of the benchmark)",
        )
        parser.add_argument("--lang", choices=("en", "zh-hans"), default="zh-hans")
        add_json_argument(parser)

    def handle(self, *args, out: str, round_name: str, runs, lang: str, **opts) -> None:
        round_ = ReviewRound.objects.select_related("benchmark").filter(name=round_name).first()
        if round_ is None:
            raise CommandError(f"no review round named {round_name!r}")
        chosen = None
        if runs is not None:
            found = {
                run.pk: run
                for run in JudgeRun.objects.filter(pk__in=runs).select_related(
                    "judge_version__config"
                )
            }
            for pk in runs:
                run = found.get(pk)
                if run is None:
                    raise CommandError(f"no judge run {pk}")
                if run.benchmark_id != round_.benchmark_id or run.kind != JudgeRun.Kind.JUDGE:
                    raise CommandError(
                        f"judge run {pk} did not judge benchmark {round_.benchmark.slug!r}"
                    )
            chosen = [found[pk] for pk in dict.fromkeys(runs)]
        with translation.override(lang):
            export = label_studio_export(round_=round_, runs=chosen)
        folder = Path(out)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / TASKS_FILE).write_text(
                json.dumps(export.tasks, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
            )
            (folder / CONFIG_FILE).write_text(export.config, encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"{out}: cannot be written ({exc.strerror})") from exc
        write_result(
            self,
            as_json=opts["json"],
            summary={
                "tasks": len(export.tasks),
                "tasks_file": str(folder / TASKS_FILE),
                "config_file": str(folder / CONFIG_FILE),
            },
            text=f"{len(export.tasks)} tasks written to {folder / TASKS_FILE}, "
            f"the labelling config to {folder / CONFIG_FILE}",
        )
