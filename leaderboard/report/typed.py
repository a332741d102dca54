"""The agreement report as a value: one typed attribute per entry, read by the pages, the
PDF, the commands and the gate, and `as_json()`, the report's JSON exactly as the API,
the commands' --json, a stored gate evaluation and a bundle keep it (the same keys, in the
same order). A report is amended only by a new one (`dataclasses.replace`), as the
calibration guard does. Pure (no Django).

The gate's decision stays a JSON block: its entries depend on the rule and on the history
read (leaderboard.report.gate_decision, leaderboard.gate.history), and the pages, the
refusal's wording and the bundles' checks read it alike from a live report and a stored
one."""

from collections.abc import Mapping
from dataclasses import dataclass, fields

# The report's breakdowns: `by_<name>` groups the judged units by their Unit.<name>.
BREAKDOWNS = ("ability", "category", "difficulty", "scenario", "system")


@dataclass(frozen=True, slots=True)
class Excluded:
    """The units left out of the judge's agreement, by why."""

    ties: int
    no_consensus: int  # no vote at all
    judge_failed: int
    judge_missing: int  # the runs did not judge the response
    judge_other_version: int  # judged on another rubric version than the round froze
    # Units of a derived judge version's calibration items (leaderboard.selection.
    # calibration_guard); None when no such guard applies.
    calibration: int | None = None

    def as_json(self) -> dict:
        data = {
            "ties": self.ties,
            "no_consensus": self.no_consensus,
            "judge_failed": self.judge_failed,
            "judge_missing": self.judge_missing,
            "judge_other_version": self.judge_other_version,
        }
        if self.calibration is not None:
            data["calibration"] = self.calibration
        return data

    @classmethod
    def from_json(cls, data: Mapping) -> "Excluded":
        # Reports stored before a judge call's failure, or another rubric version, was told
        # apart from a missing verdict count none of them.
        return cls(
            ties=data["ties"],
            no_consensus=data["no_consensus"],
            judge_failed=data.get("judge_failed", 0),
            judge_missing=data["judge_missing"],
            judge_other_version=data.get("judge_other_version", 0),
            calibration=data.get("calibration"),
        )


@dataclass(frozen=True, slots=True)
class Confusion:
    """The judge's verdicts against the majority's on the judged units, and three rates
    (None where undefined; the report's `undefined` says why)."""

    both_hit: int
    judge_only: int
    human_only: int
    both_miss: int
    sensitivity: float | None
    specificity: float | None
    prevalence: float | None

    def as_json(self) -> dict:
        return {field.name: getattr(self, field.name) for field in fields(self)}

    @classmethod
    def from_json(cls, data: Mapping) -> "Confusion":
        return cls(
            both_hit=data["both_hit"],
            judge_only=data["judge_only"],
            human_only=data["human_only"],
            both_miss=data["both_miss"],
            sensitivity=data.get("sensitivity"),
            specificity=data.get("specificity"),
            prevalence=data.get("prevalence"),
        )


# A breakdown: per group, {"units", "percent_agreement", "wilson_95"}.
Breakdown = dict[str, dict]


@dataclass(frozen=True, slots=True)
class AgreementReport:
    """The agreement report of leaderboard.report.agreement. Statistics are None where
    undefined, with the reason in `undefined` under the statistic's name; intervals are
    [low, high]."""

    units: int  # judged units: with a majority, a judge verdict and enough votes
    excluded: Excluded
    units_by_raters: dict[str, int]  # how many units have each number of votes ("3": 40)
    min_raters: int  # units with fewer votes are left out...
    short_of_raters: int  # ...and counted here
    percent_agreement: float | None  # the weighted share when the round's chances differ
    wilson_95: list[float] | None
    bootstrap_95: list[float] | None
    bootstrap: dict  # resamples, seed, clusters
    cohen_kappa: float | None
    gwet_ac1: float | None
    pabak: float | None
    confusion: Confusion
    binomial_p: float | None
    binomial_log10_p: float | None
    humans: dict  # the experts among themselves (leaderboard.report.raters)
    gate: dict  # the gate's decision (see the module)
    by_ability: Breakdown
    by_category: Breakdown
    by_difficulty: Breakdown
    by_scenario: Breakdown
    by_system: Breakdown
    by_rater: dict[str, dict]
    undefined: dict[str, str]  # statistic -> reason code (leaderboard.stats.reasons)
    # The round's design and the weights applied; None when the round has none.
    sampling: dict | None = None
    # The weighted share's own interval, kept exactly when `sampling` describes it (its
    # `weighted_interval`); None within it when it cannot be computed.
    weighted_95: list[float] | None = None
    sequential: dict | None = None  # the sequential test (leaderboard.sequential.evidence)
    calibration: dict | None = None  # the calibration guard's account, when it applies

    def __post_init__(self) -> None:
        if self.weighted_95 is not None and not self.has_weighted_interval:
            raise ValueError("weighted_95 comes with the sampling's weighted_interval")

    @property
    def has_weighted_interval(self) -> bool:
        return self.sampling is not None and "weighted_interval" in self.sampling

    @property
    def breakdowns(self) -> dict[str, Breakdown]:
        """The breakdowns by their report names (by_ability, ...), in the report's order."""
        return {f"by_{name}": getattr(self, f"by_{name}") for name in BREAKDOWNS}

    def statistic(self, key: str) -> float | None:
        """A summary statistic by its dotted name, as `undefined` and the readings name it
        ("cohen_kappa", "confusion.sensitivity", "humans.fleiss_kappa")."""
        section, _dot, name = key.rpartition(".")
        if section == "confusion":
            return getattr(self.confusion, name)
        if section == "humans":
            return self.humans.get(name)
        if section:
            raise KeyError(key)
        value = getattr(self, name)
        if value is not None and not isinstance(value, int | float):
            raise KeyError(key)
        return value

    def as_json(self) -> dict:
        """The report's JSON: optional entries only when present, in the report's order."""
        data = {
            "units": self.units,
            "excluded": self.excluded.as_json(),
            "units_by_raters": self.units_by_raters,
            "min_raters": self.min_raters,
            "short_of_raters": self.short_of_raters,
            "percent_agreement": self.percent_agreement,
            "wilson_95": self.wilson_95,
            "bootstrap_95": self.bootstrap_95,
            "bootstrap": self.bootstrap,
            "cohen_kappa": self.cohen_kappa,
            "gwet_ac1": self.gwet_ac1,
            "pabak": self.pabak,
            "confusion": self.confusion.as_json(),
            "binomial_p": self.binomial_p,
            "binomial_log10_p": self.binomial_log10_p,
            "humans": self.humans,
        }
        if self.sampling is not None:
            data["sampling"] = self.sampling
        if self.has_weighted_interval:
            data["weighted_95"] = self.weighted_95
        if self.sequential is not None:
            data["sequential"] = self.sequential
        data["gate"] = self.gate
        data.update(self.breakdowns)
        data["by_rater"] = self.by_rater
        data["undefined"] = self.undefined
        if self.calibration is not None:
            data["calibration"] = self.calibration
        return data

    @classmethod
    def from_json(cls, data: Mapping) -> "AgreementReport":
        """A report kept as JSON (a stored gate evaluation), to read as a live one. An
        entry a report stored before it existed reads as absent (None, or empty); the
        rest are as stored, so that `from_json(r.as_json()).as_json() == r.as_json()`."""
        return cls(
            units=data["units"],
            excluded=Excluded.from_json(data["excluded"]),
            units_by_raters=data.get("units_by_raters", {}),
            min_raters=data.get("min_raters", 0),
            short_of_raters=data.get("short_of_raters", 0),
            percent_agreement=data["percent_agreement"],
            wilson_95=data["wilson_95"],
            bootstrap_95=data["bootstrap_95"],
            bootstrap=data["bootstrap"],
            cohen_kappa=data.get("cohen_kappa"),
            gwet_ac1=data.get("gwet_ac1"),
            pabak=data.get("pabak"),
            confusion=Confusion.from_json(data["confusion"]),
            binomial_p=data.get("binomial_p"),
            binomial_log10_p=data.get("binomial_log10_p"),
            humans=data.get("humans") or {},
            gate=data["gate"],
            **{f"by_{name}": data[f"by_{name}"] for name in BREAKDOWNS},
            by_rater=data["by_rater"],
            undefined=data["undefined"],
            sampling=data.get("sampling"),
            weighted_95=data.get("weighted_95"),
            sequential=data.get("sequential"),
            calibration=data.get("calibration"),
        )
