import json
import unicodedata

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Benchmark
from judging.models import JudgeRun
from judging.scoring import Profile
from judging.selectors.scores import latest_finished_run, leaderboard_rows

MISSING = "-"


def _width(text: str) -> int:
    # Chinese ability labels take two terminal columns each; pad by display width.
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int, *, right: bool) -> str:
    gap = " " * (width - _width(text))
    return gap + text if right else text + gap


def _is_number(cell: str) -> bool:
    if cell == MISSING:
        return True
    try:
        float(cell.rstrip("%"))
    except ValueError:
        return False
    return True


def render_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """Left-aligned first column(s) of text, right-aligned numbers, two spaces apart."""
    widths = [max(_width(cell) for cell in column) for column in zip(headers, *rows, strict=True)]
    numeric = [all(_is_number(cell) for cell in column) for column in zip(*rows, strict=True)]
    out = []
    for cells in [headers, *rows]:
        padded = [
            _pad(cell, width, right=is_number)
            for cell, width, is_number in zip(cells, widths, numeric, strict=True)
        ]
        out.append("  ".join(padded).rstrip())
    return out


def _number(value: float | None) -> str:
    return MISSING if value is None else f"{value:.2f}"


def _percent(value: float | None) -> str:
    return MISSING if value is None else f"{value * 100:.2f}%"


class Command(BaseCommand):
    help = "Print the leaderboard of a judge run: overall, normal/hard, categories, abilities."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--benchmark", required=True, help="benchmark slug")
        parser.add_argument(
            "--run", default="latest", help="judge run id, or 'latest' finished run (default)"
        )
        parser.add_argument(
            "--profile",
            choices=[profile.value for profile in Profile],
            default=Profile.HEARTBENCH.value,
            help="catastrophic rule: the paper's (heartbench) or the released code's",
        )
        parser.add_argument("--format", choices=["json", "table"], default="table")

    def handle(self, *args, benchmark, run, profile, format, **options) -> None:
        bench = Benchmark.objects.filter(slug=benchmark).first()
        if bench is None:
            raise CommandError(f"no benchmark with slug {benchmark!r}")
        judge_run = self.find_run(bench, run)
        rows = leaderboard_rows(run=judge_run, profile=profile)
        if format == "json":
            payload = {"benchmark": bench.slug, "run": judge_run.pk, "profile": profile}
            self.stdout.write(json.dumps({**payload, "systems": rows}, ensure_ascii=False))
            return
        self.stdout.write("\n".join(self.table(bench, judge_run, profile, rows)))

    def find_run(self, bench: Benchmark, wanted: str) -> JudgeRun:
        if wanted == "latest":
            found = latest_finished_run(benchmark=bench)
            if found is None:
                raise CommandError(
                    f"benchmark {bench.slug!r} has no finished judge run; start one or "
                    "import judgments with import_judgments"
                )
            return found
        try:
            run_id = int(wanted)
        except ValueError:
            raise CommandError(f"--run must be a run id or 'latest', got {wanted!r}") from None
        found = JudgeRun.objects.filter(pk=run_id).select_related("benchmark", "config").first()
        if found is None:
            raise CommandError(f"no judge run with id {run_id}")
        if found.benchmark_id != bench.pk:
            raise CommandError(
                f"judge run {run_id} belongs to benchmark {found.benchmark.slug!r}, "
                f"not {bench.slug!r}"
            )
        if found.status != JudgeRun.Status.FINISHED:
            self.stderr.write(
                f"warning: run {run_id} is {found.status}; its scores cover only the "
                "responses judged so far"
            )
        return found

    def table(self, bench: Benchmark, run: JudgeRun, profile: str, rows: list[dict]) -> list[str]:
        out = [
            f"Benchmark {bench.slug}, run {run.pk} ({run.config.name}, {run.source}, "
            f"{run.status}), profile {profile}",
            "",
        ]
        if not rows:
            return [*out, "The run has no systems."]
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
            f"  {row['system']}: {field}: {reason}"
            for row in rows
            for field, reason in row["undefined"].items()
        ]
        if notes:
            out += ["", "undefined scores:", *notes]
        return out
