"""The experts' votes and the judge's verdicts of a round, as the judge-panel statistics
take them, and the panel's result (the command's JSON; the page and the API read it).

The round and the runs come from `agreement_evidence` (as for the agreement report), the
units from `agreement_units`: each criterion of each sampled response, with the experts'
current votes by pseudonym and the judge's verdict. A unit is compared when the judge has
a verdict and at least two experts voted; the others are counted."""

from dataclasses import dataclass

from django.utils.translation import gettext as _

from annotation.models import Benchmark
from config.version import CONCORD_VERSION
from leaderboard.boards.selectors.runs import judge_version_header
from leaderboard.evidence.selectors.pick import Evidence, EvidenceNotFound, agreement_evidence
from leaderboard.report.selectors.agreement import agreement_units
from leaderboard.stats.alt_test import (
    EPSILONS,
    FDR_Q,
    MIN_EXPERTS,
    MIN_ITEMS,
    MIN_LABELS,
    PASS_RATE,
    Instance,
    alt_test,
    indicators,
)
from leaderboard.stats.meta_f1 import meta_f1

__all__ = ["EPSILONS", "EvidenceNotFound", "PanelInputError", "judge_panel", "panel_votes"]


class PanelInputError(Exception):
    """A judge, round or margin that cannot be used; the message says which."""


@dataclass(frozen=True)
class PanelVotes:
    evidence: Evidence
    instances: tuple[Instance, ...]
    units: int  # of the round
    no_verdict: int  # units without a judge verdict
    few_votes: int  # units with a verdict but fewer than two experts' votes


def panel_votes(*, benchmark: Benchmark, round_ref: str, judge: str) -> PanelVotes:
    """Per (response, criterion) of the round: the experts' votes (pseudonyms only) and the
    judge's verdict, from the named judge's current version. Raises PanelInputError for a
    missing judge or a round or judge the benchmark does not have."""
    if not judge.strip():
        raise PanelInputError(_("Name the judge to test (its configuration's name)."))
    try:
        evidence = agreement_evidence(
            benchmark=benchmark, round_ref=round_ref, judge=judge, with_report=False
        )
    except EvidenceNotFound as exc:
        raise PanelInputError(str(exc)) from exc
    if evidence.round is None or not evidence.runs:
        raise PanelInputError(evidence.problem)
    units = agreement_units(round_=evidence.round, runs=evidence.runs)
    instances, no_verdict, few = [], 0, 0
    for unit in units:
        if unit.judge is None:
            no_verdict += 1
        elif len(unit.votes) < MIN_LABELS:
            few += 1
        else:
            instances.append(
                Instance(
                    key=(unit.response, unit.criterion),
                    item=unit.response,
                    judge=unit.judge,
                    labels=unit.votes,
                )
            )
    return PanelVotes(evidence, tuple(instances), len(units), no_verdict, few)


def parse_epsilons(values: list[str]) -> tuple[float, ...]:
    """Margins from the query or the command line (repeated, or comma-separated); none
    given: the defaults. Raises PanelInputError naming a value that is not a margin."""
    parts = [part.strip() for value in values for part in str(value).split(",") if part.strip()]
    if not parts:
        return EPSILONS
    margins = []
    for part in parts:
        try:
            margin = float(part)
        except ValueError:
            margin = -1.0
        if not 0 < margin < 1:
            raise PanelInputError(
                _("The margin %(value)s is not a number between 0 and 1 (e.g. 0.1).")
                % {"value": part}
            )
        margins.append(margin)
    return tuple(sorted(set(margins)))


def epsilon_key(epsilon: float) -> str:
    return f"{epsilon:g}"


def judge_panel(
    *,
    benchmark: Benchmark,
    round_ref: str,
    judge: str,
    epsilons: tuple[float, ...] = EPSILONS,
) -> dict:
    """The judge against the round's experts: the Alternative Annotator Test per margin and
    the macro F1 of the judge and of each expert, at full precision, with what produced
    them. Where too few experts or items allow the test, its entry gives no winning rate
    and says why."""
    votes = panel_votes(benchmark=benchmark, round_ref=round_ref, judge=judge)
    evidence = votes.evidence
    wins = indicators(votes.instances)
    judge_f1, expert_f1 = meta_f1(votes.instances)
    version = evidence.judge_version
    return {
        "benchmark": benchmark.slug,
        "round": evidence.round.name,
        "judge": judge.strip(),
        "judge_version": judge_version_header(version) if version else None,
        "judge_runs": sorted(run.pk for run in evidence.runs),
        "produced_by": f"Concord {CONCORD_VERSION}",
        "method": {
            "alt_test": "Calderon, Reichart & Dror, ACL 2025 (arXiv 2501.10970)",
            "f1": "HealthBench meta-evaluation, pairwise macro F1 (openai/simple-evals)",
            "scoring": "accuracy against the remaining experts",
            "fdr": "Benjamini-Yekutieli",
            "q": FDR_Q,
            "pass_rate": PASS_RATE,
            "min_items_per_expert": MIN_ITEMS,
            "min_experts": MIN_EXPERTS,
            "min_votes_per_unit": MIN_LABELS,
            "item": "response",
            "instance": "criterion of a response",
        },
        "units": {
            "round": votes.units,
            "compared": len(votes.instances),
            "no_judge_verdict": votes.no_verdict,
            "fewer_than_two_votes": votes.few_votes,
        },
        "items": len({instance.item for instance in votes.instances}),
        "alt_test": {
            epsilon_key(epsilon): alt_test(wins, epsilon=epsilon).as_dict() for epsilon in epsilons
        },
        "f1": {
            "judge": judge_f1.as_dict(),
            "experts": [one.as_dict() for one in expert_f1],
        },
    }
