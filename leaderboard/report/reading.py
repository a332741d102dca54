"""The agreement report read aloud: for each statistic a page shows, one sentence in the
reader's language saying what it measures here and how to read its value, and for the gate
what more evidence would change its decision. The numbers come from the report; only the
wording is made here."""

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from leaderboard.report.typed import AgreementReport
from leaderboard.report.wording import reason_text
from leaderboard.stats.planning import items_for_units, units_needed_for_lower_bound

# Below this many units a group's agreement swings by more than ±15 points on a single
# 95% interval; pages mark such groups instead of letting "100%" on one unit stand.
SMALL_GROUP = 30


def percent(value: float | None) -> str:
    """Every percentage on the reader's pages, one way: one decimal and a % sign."""
    return "—" if value is None else f"{100 * value:.1f}%"


def coefficient(value: float | None) -> str:
    """Chance-corrected coefficients (kappa, AC1, PABAK, alpha) on their own -1..1 scale."""
    return "—" if value is None else f"{value:.2f}"


# Common bands for chance-corrected coefficients (after Landis and Koch, 1977): a reading
# aid, not a verdict; the gate decides on percent agreement alone.
_BANDS = (
    (0.8, gettext_lazy("almost perfect agreement")),
    (0.6, gettext_lazy("substantial agreement")),
    (0.4, gettext_lazy("moderate agreement")),
    (0.2, gettext_lazy("fair agreement")),
    (0.0, gettext_lazy("slight agreement")),
)


def band(value: float) -> str:
    for floor, text in _BANDS:
        if value >= floor:
            return str(text)
    return _("less agreement than chance would give")


def alpha_band(value: float) -> str:
    """Krippendorff's alpha against its usual minimums (0.80 reliable, 0.667 the least for
    tentative conclusions), judged on the value as shown (two decimals), so that "0.67"
    is never called below 0.67."""
    shown = round(value, 2)
    if shown >= 0.8:
        return _("reliable")
    if shown >= 0.67:
        return _("enough for tentative conclusions only")
    return _("below 0.67, too low even for tentative conclusions")


@dataclass(frozen=True)
class Reading:
    key: str  # the report's name for the statistic
    label: str
    value: str
    text: str  # what it means here and how to read the value


def _coefficient_text(key: str, value: float) -> str:
    values = {"v": coefficient(value), "band": band(value)}
    if key == "cohen_kappa":
        return (
            _(
                "Cohen's kappa %(v)s: %(band)s beyond what two raters with these hit rates would "
                "reach by chance (0 = chance level, 1 = perfect)."
            )
            % values
        )
    if key == "gwet_ac1":
        return (
            _(
                "Gwet's AC1 %(v)s: %(band)s beyond chance, computed so that it stays stable when "
                "most verdicts are hits (or most are misses), where kappa can look low."
            )
            % values
        )
    if key == "pabak":
        return (
            _(
                "PABAK %(v)s: agreement rescaled so that 0 is what coin flips would give and 1 is "
                "perfect (2 × agreement − 1), whatever the hit rates: %(band)s."
            )
            % values
        )
    if key == "humans.fleiss_kappa":
        return (
            _(
                "Fleiss' kappa %(v)s among the experts themselves: %(band)s beyond chance. The "
                "judge can hardly be expected to agree with them better than they agree with each "
                "other."
            )
            % values
        )
    if key == "humans.krippendorff_alpha":
        # Alpha has its own bands (Krippendorff, 2004), named in the same sentence: the
        # general bands would call 0.63 "substantial", below the minimum it names.
        return _(
            "Krippendorff's alpha %(v)s among the experts, allowing for missing ratings: "
            "%(band)s. 0.80 or more is usually taken as reliable, 0.67 as the least for "
            "tentative conclusions."
        ) % {"v": values["v"], "band": alpha_band(value)}
    return (
        _(
            "Gwet's AC1 %(v)s among the experts: %(band)s beyond chance, stable when most verdicts "
            "are hits."
        )
        % values
    )


def _share_text(key: str, value: float) -> str:
    values = {"v": percent(value)}
    if key == "percent_agreement":
        return (
            _("On %(v)s of the units the judge gave the same verdict as the experts' majority.")
            % values
        )
    if key == "confusion.sensitivity":
        return (
            _(
                "Of the units the experts' majority marked as hit, the judge marked %(v)s as hit "
                "too (low: the judge misses what experts see)."
            )
            % values
        )
    if key == "confusion.specificity":
        return (
            _(
                "Of the units the experts' majority marked as miss, the judge also marked %(v)s as "
                "miss (low: the judge gives credit experts do not)."
            )
            % values
        )
    if key == "confusion.prevalence":
        return (
            _(
                "The experts' majority said hit on %(v)s of the units. The further this is from "
                "50%%, the lower kappa runs for the same agreement; AC1 and PABAK are then the "
                "fairer reading."
            )
            % values
        )
    return _(
        "Two experts taken at random gave the same verdict on %(v)s of their shared units."
    ) % (values)


# (key in the report, label, kind): shares are percentages, coefficients run -1..1.
STATISTICS = (
    ("percent_agreement", gettext_lazy("Percent agreement"), "share"),
    ("cohen_kappa", gettext_lazy("Cohen's kappa"), "coefficient"),
    ("gwet_ac1", gettext_lazy("Gwet's AC1"), "coefficient"),
    ("pabak", "PABAK", "coefficient"),
    ("confusion.sensitivity", gettext_lazy("Sensitivity"), "share"),
    ("confusion.specificity", gettext_lazy("Specificity"), "share"),
    ("confusion.prevalence", gettext_lazy("Prevalence (human hit rate)"), "share"),
    ("humans.fleiss_kappa", gettext_lazy("Experts: Fleiss' kappa"), "coefficient"),
    ("humans.krippendorff_alpha", gettext_lazy("Experts: Krippendorff's alpha"), "coefficient"),
    ("humans.gwet_ac1", gettext_lazy("Experts: Gwet's AC1"), "coefficient"),
    ("humans.pairwise_agreement", gettext_lazy("Experts: mean pairwise agreement"), "share"),
)


def statistic_readings(report: AgreementReport) -> list[Reading]:
    """Each statistic of the report's summary with its value and one sentence to read it."""
    undefined = report.undefined
    readings = []
    for key, label, kind in STATISTICS:
        value = report.statistic(key)
        if value is None:
            reason = undefined.get(key) or undefined.get(key.split(".")[-1])
            text = _("Not defined here: %(reason)s.") % {
                "reason": reason_text(reason) or _("no data")
            }
            shown = "—"
        elif kind == "share":
            text, shown = _share_text(key, value), percent(value)
        else:
            text, shown = _coefficient_text(key, value), coefficient(value)
        readings.append(Reading(key, str(label), shown, text))
    return readings


def units_text() -> str:
    return _(
        "A unit is one criterion of one reviewed response: the judge's hit or miss on it is "
        "compared with the experts' majority. Ties and units without a judge verdict are left "
        "out (see below)."
    )


def p_value_text(report: AgreementReport) -> str:
    threshold = percent(report.gate["threshold"])
    return _(
        "The p-value is the chance of agreement at least this high if the judge's true "
        "agreement were only %(t)s. Below 0.05: the agreement is credibly above %(t)s; near "
        "1 (such as p = 1.000): these data give no sign of agreement above %(t)s."
    ) % {"t": threshold}


def gate_outlook(report: AgreementReport, *, units_per_item: float) -> str:
    """What would change the gate's decision, from the same Wilson interval it uses."""
    gate = report.gate
    threshold, point, units = gate["threshold"], report.percent_agreement, report.units
    if point is None or not units:
        return ""
    values = {"t": percent(threshold)}
    lower = gate.get("lower_bound")
    if lower is not None and lower >= threshold:
        return (
            _(
                "Even the lower end of the 95%% interval reaches %(t)s: sampling error alone "
                "would not change this decision."
            )
            % values
        )
    needed = units_needed_for_lower_bound(round(point * units), units, threshold)
    if needed is None and gate["passed"]:
        return (
            _(
                "Agreement is exactly at %(t)s: a few more disagreements would turn this decision, "
                "and at this agreement the lower bound of the 95%% interval can never reach %(t)s."
            )
            % values
        )
    if needed is None:
        return (
            _(
                "Agreement is not above %(t)s: more items at the current agreement would not lift "
                "the lower bound to %(t)s; the judge has to agree with the experts more often."
            )
            % values
        )
    values.update(n=needed, items=items_for_units(needed, units_per_item))
    if gate["passed"]:
        return (
            _(
                "The point estimate passes, but the lower bound of the 95%% interval is below "
                "%(t)s: about %(n)d more units (about %(items)d more reviewed responses) at the "
                "current agreement would be needed for the lower bound to reach %(t)s too."
            )
            % values
        )
    return (
        _(
            "About %(n)d more units (about %(items)d more reviewed responses) at the current "
            "agreement would be needed for the lower bound to reach %(t)s."
        )
        % values
    )
