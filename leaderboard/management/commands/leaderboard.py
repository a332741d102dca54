import json

from django.core.management.base import BaseCommand, CommandError, no_translations

from annotation.models import Benchmark
from config.version import CONCORD_VERSION
from judging.models import JudgeRun
from judging.scoring import Profile
from leaderboard.boards.selectors.runs import BoardNotFound, board_runs, judge_version_header
from leaderboard.boards.selectors.scores import leaderboard_rows
from leaderboard.corrected.command import corrected_output
from leaderboard.evidence.provenance import rubric_versions_of
from leaderboard.management.cli import MISSING, render_table
from leaderboard.report.wording_reasons import reason_text


def _number(value: float | None) -> str:
    return MISSING if value is None else f"{value:.2f}"


def _percent(value: float | None) -> str:
    return MISSING if value is None else f"{value * 100:.2f}%"


class Command(BaseCommand):
    help = (
        "Print a judge's leaderboard: overall, normal/hard, categories, abilities. By default "
        "the judge version that finished a run last, over every system its finished runs judged."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--benchmark", required=True, help="benchmark slug")
        parser.add_argument(
            "--judge", default="", help="judge configuration name (its current version)"
        )
        parser.add_argument(
            "--run",
            action="append",
            default=[],
            dest="runs",
            help="judge run id (repeatable; 'latest' is the default choice)",
        )
        parser.add_argument(
            "--profile",
            choices=[profile.value for profile in Profile],
            default=Profile.HEARTBENCH.value,
            help="catastrophic rule: the paper's (heartbench) or the released code's",
        )
        parser.add_argument("--json", action="store_true", help="print JSON (default: a table)")
        parser.add_argument(
            "--corrected-by",
            default=None,
            metavar="ROUND",
            help="review round (id or name) whose expert votes correct the judge's scores",
        )

    @no_translations
    def handle(self, *args, benchmark, judge, runs, profile, **options) -> None:
        format = "json" if options.get("json") else "table"
        bench = Benchmark.objects.filter(slug=benchmark).first()
        if bench is None:
            raise CommandError(f"no benchmark with slug {benchmark!r}")
        runs = [value for value in runs if value != "latest"]
        if not all(value.isdigit() for value in runs):
            raise CommandError(f"--run takes run ids, got {' '.join(runs)!r}")
        try:
            board = board_runs(benchmark=bench, judge=judge, runs=[int(v) for v in runs])
        except BoardNotFound as exc:
            raise CommandError(str(exc)) from exc
        for run in board.runs:
            if run.status != JudgeRun.Status.FINISHED:
                self.stderr.write(
                    f"warning: run {run.pk} is {run.status}; its scores cover only the "
                    "responses judged so far"
                )
        if options.get("corrected_by") is not None:
            self.stdout.write(
                corrected_output(bench, board, options["corrected_by"], profile, format)
            )
            return
        rows = leaderboard_rows(board=board, profile=profile)
        if format == "json":
            version = board.judge_version
            payload = {
                "benchmark": bench.slug,
                "runs": board.run_ids,
                "judge_version": None if version is None else judge_version_header(version),
                "rubric_versions": rubric_versions_of(
                    board.tasks().values_list("case__external_id", "rubric_version__number")
                ),
                "profile": profile,
                "produced_by": f"Concord {CONCORD_VERSION}",
            }
            self.stdout.write(json.dumps({**payload, "systems": rows}, ensure_ascii=False))
            return
        self.stdout.write("\n".join(self.table(bench, board, profile, rows)))

    def table(self, bench: Benchmark, board, profile: str, rows: list[dict]) -> list[str]:
        version = board.judge_version
        judge = version.label if version else "runs of several judge versions"
        out = [
            f"Benchmark {bench.slug}, {judge}, runs {', '.join(map(str, board.run_ids))}, "
            f"profile {profile}",
            "",
        ]
        if not rows:
            return [*out, "The runs have no systems."]
        out += render_table(
            [
                "#",
                "system",
                "kind",
                "overall",
                "95% CI",
                "normal",
                "hard",
                "decline",
                "scored",
                "failed",
            ],
            [
                [
                    str(rank),
                    row["system"],
                    row["kind"],
                    _number(row["overall"]),
                    "-".join(map(_number, row["overall_95"])) if row["overall_95"] else MISSING,
                    _number(row["normal"]),
                    _number(row["hard"]),
                    _percent(row["relative_decline"]),
                    str(row["cases_scored"]),
                    str(row["cases_failed"]),
                ]
                for rank, row in enumerate(rows, start=1)
            ],
        )
        resamples = rows[0]["bootstrap"]["resamples"]
        out.append(
            "decline = (normal - hard) / normal; failed cases are not scored; "
            f"95% CI: percentile bootstrap over cases, {resamples} resamples"
        )
        for title, key in (
            ("category", "categories"),
            ("ability", "abilities"),
            ("scene", "scenes"),
        ):
            names = list(dict.fromkeys(name for row in rows for name in row[key]))
            if not names:
                continue
            out.append("")
            out += render_table(
                [title, *(row["system"] for row in rows)],
                [[name, *(_number(row[key].get(name)) for row in rows)] for name in names],
            )
        notes = [
            f"  {row['system']}: {field}: {reason_text(reason)}"
            for row in rows
            for field, reason in row["undefined"].items()
        ]
        if notes:
            out += ["", "undefined scores:", *notes]
        return out
