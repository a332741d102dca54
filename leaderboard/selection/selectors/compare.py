"""Two judge runs side by side on the units they share: how often they agree with each
other, per ability, with Cohen's kappa and McNemar's exact test; and, for a review round,
each run's agreement with the experts' majority and the paired difference."""

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.utils.translation import gettext as _

from annotation.consensus import has_majority, majority_hit
from annotation.models import Benchmark, ReviewRound
from config.version import CONCORD_VERSION
from judging.models import JudgeRun, JudgeTask, Verdict
from judging.models.runs import requested_tasks
from leaderboard.boards.selectors.runs import judge_version_header
from leaderboard.report.selectors.agreement import agreement_units
from leaderboard.stats.bootstrap import DEFAULT_RESAMPLES
from leaderboard.stats.paired import cluster_bootstrap_difference, mcnemar_exact
from leaderboard.stats.pairwise import cohens_kappa_table, percent_agreement_from_counts
from leaderboard.stats.reasons import NO_PAIRED_UNITS, NO_UNITS
from leaderboard.stats.result import Interval, Stat


class CompareInvalid(Exception):
    pass


@dataclass(frozen=True)
class _Verdict:
    hit: bool
    case: str
    ability: str


def _verdicts(run: JudgeRun) -> dict[tuple[int, int], _Verdict]:
    rows = Verdict.objects.filter(
        requested_tasks("task__"), task__run=run, task__status=JudgeTask.Status.DONE
    ).values_list(
        "task__response_id", "criterion_id", "hit", "task__case__external_id",
        "criterion__ability__label",
    )  # fmt: skip
    return {(r, c): _Verdict(hit, case, ability) for r, c, hit, case, ability in rows}


def _stat(stat: Stat) -> dict:
    return {"value": stat.value, "reason": stat.reason}


def _interval(interval: Interval) -> dict:
    return {"low": interval.low, "high": interval.high, "reason": interval.reason}


def _pair_summary(pairs: list[tuple[bool, bool]]) -> dict:
    """How two judges' verdicts on the same units relate: agreement, kappa, McNemar."""
    both = sum(1 for a, b in pairs if a and b)
    only_first = sum(1 for a, b in pairs if a and not b)
    only_second = sum(1 for a, b in pairs if b and not a)
    neither = len(pairs) - both - only_first - only_second
    return {
        "units": len(pairs),
        "agreement": _stat(percent_agreement_from_counts(both + neither, len(pairs))),
        "cohens_kappa": _stat(
            cohens_kappa_table([[both, only_first], [only_second, neither]])
            if pairs
            else Stat.undefined(NO_UNITS)
        ),
        "first_hit_second_miss": only_first,
        "first_miss_second_hit": only_second,
        "mcnemar_p": _stat(mcnemar_exact(only_first, only_second)),
    }


def _runs_of(benchmark: Benchmark, run_ids: list[int]) -> tuple[JudgeRun, JudgeRun]:
    if len(run_ids) != 2 or run_ids[0] == run_ids[1]:
        raise CompareInvalid(_("Name two different judge runs."))
    runs = {
        run.pk: run
        for run in JudgeRun.objects.filter(
            pk__in=run_ids, benchmark=benchmark, kind=JudgeRun.Kind.JUDGE
        ).select_related("judge_version__config", "judge_version__prompt")
    }
    missing = [f"#{pk}" for pk in run_ids if pk not in runs]
    if missing:
        raise CompareInvalid(
            _("No judge run %(runs)s in benchmark %(slug)s.")
            % {"runs": ", ".join(missing), "slug": benchmark.slug}
        )
    return runs[run_ids[0]], runs[run_ids[1]]


def _with_round(round_: ReviewRound, first: JudgeRun, second: JudgeRun, resamples: int) -> dict:
    units_first = {
        (u.response, u.criterion): u for u in agreement_units(round_=round_, runs=[first])
    }
    units_second = {
        (u.response, u.criterion): u for u in agreement_units(round_=round_, runs=[second])
    }
    agree_first, agree_second, cases = [], [], []
    for key, unit in units_first.items():
        other = units_second.get(key)
        if other is None or unit.judge is None or other.judge is None:
            continue
        votes = len(unit.votes)
        hits = sum(1 for _rater, hit in unit.votes if hit)
        if not has_majority(votes, hits):
            continue  # no votes, or a tie: no gold to agree with
        gold = bool(majority_hit(votes, hits))
        agree_first.append(unit.judge == gold)
        agree_second.append(other.judge == gold)
        cases.append(unit.case)
    n = len(cases)
    first_share = percent_agreement_from_counts(int(np.sum(agree_first)), n)
    second_share = percent_agreement_from_counts(int(np.sum(agree_second)), n)
    difference = (
        Stat.of(first_share.value - second_share.value) if n else Stat.undefined(NO_PAIRED_UNITS)
    )
    return {
        "name": round_.name,
        "units": n,
        "first_agreement": _stat(first_share),
        "second_agreement": _stat(second_share),
        "difference": _stat(difference),
        "difference_95": _interval(
            cluster_bootstrap_difference(agree_first, agree_second, cases, n_resamples=resamples)
        ),
        "resamples": resamples,
    }


def runs_compare(
    *,
    benchmark: Benchmark,
    run_ids: list[int],
    round_name: str = "",
    resamples: int = DEFAULT_RESAMPLES,
) -> dict:
    """The comparison of two runs of `benchmark` (their ids, in order), and with
    `round_name`, of each with that round's expert majority. Raises CompareInvalid."""
    first, second = _runs_of(benchmark, run_ids)
    round_ = None
    if round_name:
        round_ = ReviewRound.objects.filter(benchmark=benchmark, name=round_name).first()
        if round_ is None:
            raise CompareInvalid(
                _("No review round %(name)s in benchmark %(slug)s.")
                % {"name": repr(round_name), "slug": benchmark.slug}
            )
    verdicts_first, verdicts_second = _verdicts(first), _verdicts(second)
    shared = sorted(verdicts_first.keys() & verdicts_second.keys())
    by_ability: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    pairs = []
    for key in shared:
        pair = (verdicts_first[key].hit, verdicts_second[key].hit)
        pairs.append(pair)
        by_ability[verdicts_first[key].ability].append(pair)
    result = {
        "benchmark": benchmark.slug,
        "runs": [
            {"id": run.pk, "judge_version": judge_version_header(run.judge_version)}
            for run in (first, second)
        ],
        "produced_by": f"Concord {CONCORD_VERSION}",
        "shared": _pair_summary(pairs),
        "only_in_first": len(verdicts_first.keys() - verdicts_second.keys()),
        "only_in_second": len(verdicts_second.keys() - verdicts_first.keys()),
        "by_ability": {label: _pair_summary(by_ability[label]) for label in sorted(by_ability)},
    }
    if round_ is not None:
        result["round"] = _with_round(round_, first, second, resamples)
    return result
