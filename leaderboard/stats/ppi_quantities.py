"""The per-response quantities whose means are a system's published scores, computed from
the judge's verdicts and from the experts' majority verdicts by the one scorer
(`judging.scoring`), and their PPI++ means. No Django here.

With N responses, D abilities present and N_d responses containing ability d:

- an ability score is the mean of S_d over the responses that contain d;
- the overall score (the macro average over abilities) is the mean over all N responses of
  psi_i = sum_d S_{d,i} * N / (D * N_d), S_{d,i} counted 0 where response i lacks d;
- a category score is the same with its own abilities (D_c of them) in place of all;
- the normal (hard) score is the overall score of the normal (hard) responses alone.

Which abilities a response contains depends on its rubric only, never on the verdicts, so
N, D and N_d are the same for the judge and the experts. Criteria within a response are
never treated as independent: the response is the unit.

Each response may carry the chance the round's sampling design gave it of being drawn. A
labelled response then weighs 1/p and an unlabelled one 1/(1 - p) (the inverse of its
chance of being in its set), so every mean is weighted by the inverse inclusion probability;
a set whose responses lack a chance, or an unlabelled response drawn for certain (it is
missing its votes, not sampled out), is not weighted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from judging.scoring import DIFFICULTIES, CaseScores, CaseVerdicts, Profile, scorable, score_case
from leaderboard.stats.ppi import ALPHA, MIN_LABELLED, PPIMean, ppi_mean
from leaderboard.stats.reasons import PPI_NO_RESPONSES as NO_RESPONSES


@dataclass(frozen=True)
class ResponsePair:
    """One judged response of a system: the judge's verdicts, and the experts' majority
    verdicts on the same rubric when the response is labelled (else None)."""

    judge: CaseVerdicts
    experts: CaseVerdicts | None = None
    probability: float | None = None  # the design's chance of drawing it; None: unknown

    @property
    def case_id(self) -> str:
        return self.judge.case_id


@dataclass(frozen=True)
class _Scored:
    case_id: str
    difficulty: str
    judge: CaseScores
    experts: CaseScores | None
    probability: float | None = None


@dataclass(frozen=True)
class QuantityArrays:
    """The arrays `ppi_mean` is given for one score of one system."""

    keys: list[str]
    y: list[float]
    yhat: list[float]
    unlabelled_keys: list[str]
    yhat_unlabelled: list[float]
    w: list[float] | None = None
    w_unlabelled: list[float] | None = None

    def fit(self, *, alpha: float = ALPHA, min_labelled: int = MIN_LABELLED) -> PPIMean:
        if not self.keys and not self.unlabelled_keys:
            return PPIMean(labelled=0, unlabelled=0, judge=None, reason=NO_RESPONSES)
        return ppi_mean(
            y=self.y,
            yhat=self.yhat,
            yhat_unlabelled=self.yhat_unlabelled,
            keys=self.keys,
            unlabelled_keys=self.unlabelled_keys,
            alpha=alpha,
            min_labelled=min_labelled,
            w=self.w,
            w_unlabelled=self.w_unlabelled,
        )


def _score(pairs: Iterable[ResponsePair], profile: Profile) -> list[_Scored]:
    scored = []
    for pair in pairs:
        judge = score_case(pair.judge, profile)
        experts = None if pair.experts is None else score_case(pair.experts, profile)
        if experts is not None and set(experts.abilities) != set(judge.abilities):
            raise ValueError(
                f"case {pair.case_id!r}: the experts' and the judge's verdicts are on "
                "different rubrics"
            )
        scored.append(
            _Scored(pair.case_id, pair.judge.difficulty, judge, experts, pair.probability)
        )
    return scored


def _arrays(scored: Sequence[_Scored], value: Callable[[CaseScores], float]) -> QuantityArrays:
    out = QuantityArrays([], [], [], [], [])
    for item in scored:
        if item.experts is None:
            out.unlabelled_keys.append(item.case_id)
            out.yhat_unlabelled.append(value(item.judge))
        else:
            out.keys.append(item.case_id)
            out.y.append(value(item.experts))
            out.yhat.append(value(item.judge))
    # Weights only when every response's chance is known: half a weighting is none.
    chances = [item.probability for item in scored]
    if not chances or any(p is None for p in chances):
        return out
    labelled = [item.probability for item in scored if item.experts is not None]
    others = [item.probability for item in scored if item.experts is None]
    if labelled and all(0 < p <= 1 for p in labelled):
        out = replace(out, w=[1.0 / p for p in labelled])
    if others and all(0 <= p < 1 for p in others):
        out = replace(out, w_unlabelled=[1.0 / (1.0 - p) for p in others])
    return out


def _macro(scored: Sequence[_Scored], abilities: set[str] | None = None) -> QuantityArrays:
    """psi_i over `scored` for the macro average of `abilities` (all present: None)."""
    counts: dict[str, int] = {}
    for item in scored:
        for label in item.judge.abilities:
            if abilities is None or label in abilities:
                counts[label] = counts.get(label, 0) + 1
    if not counts:
        return QuantityArrays([], [], [], [], [])
    factor = {label: len(scored) / (len(counts) * n_d) for label, n_d in counts.items()}

    def psi(scores: CaseScores) -> float:
        return sum(
            s_d * factor[label] for label, s_d in scores.abilities.items() if label in factor
        )

    return _arrays(scored, psi)


def _ability(scored: Sequence[_Scored], label: str) -> QuantityArrays:
    return _arrays(
        [item for item in scored if label in item.judge.abilities],
        lambda scores: scores.abilities[label],
    )


def ability_categories(pairs: Iterable[ResponsePair]) -> dict[str, str]:
    """Each ability's category, from the judge's scorable criteria."""
    categories: dict[str, str] = {}
    for pair in pairs:
        for criterion in pair.judge.criteria:
            if scorable(criterion):
                categories.setdefault(criterion.ability, criterion.category)
    return categories


@dataclass(frozen=True)
class SystemQuantities:
    overall: QuantityArrays
    abilities: dict[str, QuantityArrays]
    categories: dict[str, QuantityArrays]
    difficulties: dict[str, QuantityArrays]


def system_quantities(pairs: Sequence[ResponsePair], profile: Profile | str) -> SystemQuantities:
    """Every score's per-response arrays for one system's judged responses."""
    profile = Profile(profile)
    seen: set[str] = set()
    for pair in pairs:
        if pair.case_id in seen:
            raise ValueError(f"case {pair.case_id!r} is given twice")
        seen.add(pair.case_id)
    scored = _score(pairs, profile)
    labels = list(dict.fromkeys(label for item in scored for label in item.judge.abilities))
    categories = ability_categories(pairs)
    by_category: dict[str, set[str]] = {}
    for label in labels:
        by_category.setdefault(categories[label], set()).add(label)
    return SystemQuantities(
        overall=_macro(scored),
        abilities={label: _ability(scored, label) for label in labels},
        categories={name: _macro(scored, members) for name, members in by_category.items()},
        difficulties={
            side: _macro([item for item in scored if item.difficulty == side])
            for side in DIFFICULTIES
        },
    )
