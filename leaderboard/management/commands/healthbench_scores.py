import json

from django.core.management.base import BaseCommand, CommandError, no_translations

from annotation.models import Benchmark
from config.version import CONCORD_VERSION
from judging.scoring.healthbench import DEFAULT_SEED, N_RESAMPLES, PROFILE, ClippedMean
from leaderboard.boards.selectors.healthbench import NotScorable, healthbench_board_scores
from leaderboard.boards.selectors.runs import BoardNotFound, board_runs, judge_version_header


def _stat(stat: ClippedMean) -> dict:
    return {
        "mean": stat.mean.value,
        "bootstrap_std": stat.bootstrap_std.value,
        "n_samples": stat.n_samples,
        "reason": stat.mean.reason,
    }


def _line(name: str, stat: ClippedMean) -> str:
    if not stat.mean.is_defined:
        return f"  {name}: undefined ({stat.mean.reason})"
    return (
        f"  {name}: {stat.mean.value:.4f} (bootstrap sd {stat.bootstrap_std.value:.4f}, "
        f"n={stat.n_samples})"
    )


class Command(BaseCommand):
    help = (
        "Score a benchmark's judge runs under the healthbench profile (HealthBench's rubric "
        "score: overall, per axis and per theme, each with its bootstrap standard deviation)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--benchmark", required=True, help="benchmark slug")
        parser.add_argument("--judge", default="", help="judge name (default: the benchmark's)")
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="bootstrap seed")
        parser.add_argument("--resamples", type=int, default=N_RESAMPLES)
        parser.add_argument("--json", action="store_true", help="print JSON at full precision")

    @no_translations
    def handle(self, *args, benchmark, judge, seed, resamples, json, **options) -> None:
        found = Benchmark.objects.filter(slug=benchmark).first()
        if found is None:
            raise CommandError(f"no benchmark with slug {benchmark!r}")
        if resamples < 1:
            raise CommandError("--resamples must be at least 1")
        try:
            board = board_runs(benchmark=found, judge=judge)
            scores = healthbench_board_scores(board=board, seed=seed, n_resamples=resamples)
        except (BoardNotFound, NotScorable) as exc:
            raise CommandError(str(exc)) from exc
        if json:
            self.stdout.write(
                _dumps(
                    {
                        "profile": PROFILE,
                        "benchmark": found.slug,
                        "runs": board.run_ids,
                        "judge_version": None
                        if board.judge_version is None
                        else judge_version_header(board.judge_version),
                        "chosen_by": board.chosen_by,
                        "seed": seed,
                        "n_resamples": resamples,
                        "concord_version": CONCORD_VERSION,
                        "systems": {
                            system: {
                                "overall": _stat(s.overall),
                                "by_axis": {t: _stat(v) for t, v in s.by_axis.items()},
                                "by_theme": {t: _stat(v) for t, v in s.by_theme.items()},
                                "by_tag": {t: _stat(v) for t, v in s.by_tag.items()},
                            }
                            for system, s in scores.items()
                        },
                    }
                )
            )
            return
        for system, s in scores.items():
            self.stdout.write(system)
            self.stdout.write(_line("overall", s.overall))
            for name, stat in [*s.by_axis.items(), *s.by_theme.items()]:
                self.stdout.write(_line(name, stat))


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)
