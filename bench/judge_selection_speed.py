"""Speed of the judge selection (`judge_selection`) at HeartBench's full scale: the data of
bench/agreement_speed.py (a round of about 4,700 responses and 47,000 units, 140,000 votes)
with three judge versions on it (the seeded one and two more whose verdicts on the round's
responses differ from it on 10% and 25% of the criteria), compared with 1,000 cluster
bootstrap resamples. Prints the wall time (first, then the median of the following) and
the median CPU time; never asserts.

    python bench/judge_selection_speed.py [--var-dir DIR]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/concord_x python bench/judge_selection_speed.py
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.agreement_speed import cpu_median, parse_args, seed, setup_django, timed  # noqa: E402

FLIPS = {"speed judge b": 0.10, "speed judge c": 0.25}


def more_judges(run, round_) -> None:
    """Two more imported judge versions, each with a finished run on the round's responses."""
    import numpy as np
    from django.utils import timezone

    from judging.models import JudgeRun, JudgeTask, Verdict
    from judging.services.judge_versions import judge_version_imported

    rng = np.random.default_rng(11)
    tasks = list(
        JudgeTask.objects.filter(run=run, response__review_items__round=round_).values_list(
            "pk", "case_id", "system_id", "response_id", "rubric_version_id"
        )
    )
    verdicts: dict[int, list[tuple[int, bool]]] = {}
    for task, criterion, hit in Verdict.objects.filter(
        task_id__in=[t[0] for t in tasks]
    ).values_list("task_id", "criterion_id", "hit"):
        verdicts.setdefault(task, []).append((criterion, hit))
    for name, flip in FLIPS.items():
        version = judge_version_imported(name=name)
        if JudgeRun.objects.filter(judge_version=version).exists():
            continue
        other = JudgeRun.objects.create(
            benchmark=run.benchmark,
            judge_version=version,
            status=JudgeRun.Status.FINISHED,
            finished=timezone.now(),
        )
        copies = JudgeTask.objects.bulk_create(
            [
                JudgeTask(
                    run=other,
                    case_id=case,
                    system_id=system,
                    response_id=response,
                    rubric_version_id=rubric,
                    status=JudgeTask.Status.DONE,
                    attempts=1,
                )
                for _pk, case, system, response, rubric in tasks
            ],
            batch_size=5000,
        )
        Verdict.objects.bulk_create(
            [
                Verdict(task_id=copy.pk, criterion_id=c, hit=hit != (rng.random() < flip))
                for copy, (pk, *_rest) in zip(copies, tasks, strict=True)
                for c, hit in verdicts[pk]
            ],
            batch_size=5000,
        )


def seeded(args):
    """The full round and the first judge's run: seeded by agreement_speed, or found in the
    folder of an earlier run of this benchmark (which holds more than one run)."""
    from annotation.models import ReviewRound
    from judging.models import JudgeRun

    run = JudgeRun.objects.filter(
        benchmark__slug="speed", judge_version__config__name="speed judge"
    ).first()
    if run is None or JudgeRun.objects.filter(benchmark__slug="speed").count() == 1:
        data = seed(args)
        return data["rounds"]["full"], data["run"]
    return ReviewRound.objects.get(benchmark__slug="speed", name="speed full"), run


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    vendor = setup_django(args.var_dir)
    from leaderboard.selection.selectors.versions import judge_selection

    print(f"database: {vendor}")
    start = time.perf_counter()
    round_, run = seeded(args)
    more_judges(run, round_)
    print(f"seeded in {time.perf_counter() - start:.1f} s; {round_.items.count():,} items")
    first, median, result = timed(lambda: judge_selection(round_=round_), args.repeats)
    cpu = cpu_median(lambda: judge_selection(round_=round_), args.repeats)
    for row in result["judges"]:
        print(
            f"  {row['label']}: agreement {row['agreement']['value']:.4f} on {row['units']:,} "
            f"units, gate {'passed' if row['gate']['passed'] else 'not passed'}"
        )
    print(
        f"judge_selection of {len(result['judges'])} versions: first {first:.2f} s, "
        f"median {median:.2f} s wall, {cpu:.2f} s CPU (median of {args.repeats})"
    )


if __name__ == "__main__":
    main()
