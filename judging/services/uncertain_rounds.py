"""Opening a review round that samples more where a judge is unsure: the chances come from
a finished judge run (judging.selectors.uncertainty), the round and its draw from
annotation, which never learns where they came from."""

from collections.abc import Sequence

from django.utils.translation import gettext as _

from annotation.models import Benchmark, ReviewRound, System
from annotation.review_sampling import (
    FLOOR_SHARE,
    FLOOR_SHARE_MAX,
    UNCERTAINTY,
    probabilities_by_size,
)
from annotation.services.review_rounds import RoundInvalid, population_units, round_open
from judging.models import JudgeRun
from judging.selectors.uncertainty import response_uncertainty


def _checked(run: JudgeRun, benchmark: Benchmark) -> JudgeRun:
    if run.benchmark_id != benchmark.pk:
        raise RoundInvalid(
            _("Judge run %(run)d is not on benchmark “%(benchmark)s”.")
            % {"run": run.pk, "benchmark": benchmark.slug}
        )
    if run.kind != JudgeRun.Kind.JUDGE:
        raise RoundInvalid(_("Run %(run)d is not a judge run.") % {"run": run.pk})
    if run.status != JudgeRun.Status.FINISHED:
        raise RoundInvalid(
            _("Judge run %(run)d has not finished: sample from a finished run.") % {"run": run.pk}
        )
    return run


def uncertainty_probabilities(
    *,
    benchmark: Benchmark,
    systems: Sequence[System],
    run: JudgeRun,
    second: JudgeRun | None,
    fraction: float,
    floor_share: float = FLOOR_SHARE,
) -> dict[int, float]:
    """Each response's chance of being drawn: proportional to the floor plus how unsure
    the run (or the two runs) is of it, adding up to fraction * responses. A response the
    run did not judge counts as one it is sure of: its chance is the floor's."""
    _checked(run, benchmark)
    if second is not None:
        if second.pk == run.pk:
            raise RoundInvalid(_("Name two different judge runs to compare."))
        _checked(second, benchmark)
    if not 0 < fraction <= 1:
        raise RoundInvalid(_("The sampling fraction must be more than 0 and at most 1."))
    if not 0 < floor_share <= FLOOR_SHARE_MAX:
        raise RoundInvalid(
            _("The floor must be more than 0 and at most %(most)s times the mean uncertainty.")
            % {"most": FLOOR_SHARE_MAX}
        )
    units, _versions = population_units(benchmark=benchmark, systems=systems)
    scores = response_uncertainty(run=run, second=second)
    population = [unit.response_id for unit in units]
    if not any(pk in scores for pk in population):
        if second is None:
            raise RoundInvalid(
                _(
                    "Judge run %(run)d says nothing about how unsure it is: it is no "
                    "ensemble of several samples. Name a second judge's run to compare "
                    "with, or sample uniformly."
                )
                % {"run": run.pk}
            )
        raise RoundInvalid(
            _(
                "Judge runs %(run)d and %(second)d share no judged criterion of these "
                "systems' responses."
            )
            % {"run": run.pk, "second": second.pk}
        )
    return probabilities_by_size(
        {pk: scores.get(pk, 0.0) for pk in population}, fraction=fraction, floor_share=floor_share
    )


def uncertain_round_open(
    *,
    benchmark: Benchmark,
    systems: Sequence[System],
    run: JudgeRun,
    second: JudgeRun | None = None,
    fraction: float = 0.3,
    floor_share: float = FLOOR_SHARE,
    **options,
) -> ReviewRound:
    """Open a round drawn with more weight where the judge is unsure (see
    `uncertainty_probabilities`); `options` are round_open's other settings."""
    probabilities = uncertainty_probabilities(
        benchmark=benchmark,
        systems=systems,
        run=run,
        second=second,
        fraction=fraction,
        floor_share=floor_share,
    )
    return round_open(
        benchmark=benchmark,
        systems=systems,
        fraction=fraction,
        sampling=UNCERTAINTY,
        probabilities=probabilities,
        chances_from={
            "judge_run": run.pk,
            "second_judge_run": second.pk if second else None,
            "floor_share": floor_share,
        },
        **options,
    )
