"""Display wording of the agreement report, the gate and leaderboards, in the reader's
language: why a number is undefined, the gate's rule, scoring profiles and report groups.

Why a number is undefined is worded in `leaderboard/report/wording_reasons.py` (a reason's code
to its sentence); `reason_text` and `scene_name` are taken from there.
"""

from django.utils import formats, timezone
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from leaderboard.gate.policy import Refusal
from leaderboard.report.wording_reasons import reason_text, scene_name  # noqa: F401 (shared names)


def gate_rule_text(gate: dict) -> str:
    """The gate's rule, for the page and the PDF alike, with the threshold as a percentage
    like every other share they show. A report keeps the rule by name (`rule_name`) and, as
    data, as an English sentence (`rule`), which reports stored before the name existed
    are left with."""
    threshold = _percent(gate["threshold"])
    if gate.get("rule_name") == "point":
        return _("agreement (point estimate) of at least %(t)s") % {"t": threshold}
    if gate.get("rule_name") == "lower_bound":
        if gate.get("pooled"):
            return _(
                "lower bound of the interval of at least %(t)s (Wilson at the effective number "
                "of units, allowing for criteria correlated within a response)"
            ) % {"t": threshold}
        return _("lower bound of the Wilson 95%% interval of at least %(t)s") % {"t": threshold}
    if gate.get("rule_name") == "sequential":
        return _("the sequential test decides that agreement is at least %(t)s") % {"t": threshold}
    return gate["rule"]


_PROFILES = {
    "heartbench": gettext_lazy("HeartBench (the paper's catastrophic rule)"),
    "heartbench-code": gettext_lazy("HeartBench (the released code's catastrophic rule)"),
}


def profile_label(value) -> str:
    """A scoring profile's name for people; an unknown profile is shown as its code."""
    return str(_PROFILES.get(str(value), value))


def _taxonomy_names() -> dict[str, dict[str, tuple[str, str]]]:
    # From the built-in taxonomy table, not the database: report groups are keyed by these
    # names, and a lookup per table row would cost a query each.
    from annotation.taxonomy import ABILITIES, CATEGORIES

    return {
        "category": {en: (en, zh) for _code, en, zh in CATEGORIES}
        | {"Uncategorised": ("Uncategorised", "未分类")},
        "ability": {label: (en, zh) for label, _code, en, zh in ABILITIES},
    }


def group_label(value, key: str) -> str:
    """A report group's name in the reader's language: a category (keyed by its English
    name), an ability (keyed by its label in the data) or a difficulty."""
    from annotation.models import Case

    text = "" if value is None else str(value)
    if key == "scenario" and not text:
        return scene_name(text)
    if key == "difficulty" and text in Case.Difficulty.values:
        return str(Case.Difficulty(text).label)
    names = _taxonomy_names().get(key, {}).get(text)
    if names is None:
        return text
    english, chinese = names
    return chinese if (get_language() or "").startswith("zh") and chinese else english


# Short English column heads for the ability heatmap (the full name is the tooltip); the
# Chinese names are short enough as they are.
_ABBREVIATIONS = {
    "Verbal Expression": "VE",
    "Curiosity": "Cur",
    "Warmth": "Wrm",
    "First-Person Usage": "1P",
    "Autonomy": "Aut",
    "Humor": "Hum",
    "Self-Awareness": "SA",
    "Emotional Coping": "ECo",
    "Emotional Understanding": "EUn",
    "Emotional Perception": "EPe",
    "Emotional Reaction": "ERe",
    "Proactivity": "Pro",
    "Relationship Building": "RB",
    "Motivation": "Mot",
    "Morality": "Mor",
    "Other (catastrophic failure)": "Cat",
}


def ability_abbreviation(label: str, name: str) -> str:
    """A heatmap column head: the Chinese name under Chinese, else a short English form of
    a known ability (an unknown one keeps its name)."""
    if (get_language() or "").startswith("zh"):
        return group_label(label, "ability") if label else name
    english = _taxonomy_names()["ability"].get(label, (name, ""))[0]
    return _ABBREVIATIONS.get(english, name)


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def refusal_text(decision, evaluation=None, judge: str = "") -> str:
    """Why the gate policy refused to publish (a `gate_policy.Decision`), naming the
    evaluation it looked at."""
    refusal = decision.refusal
    if refusal == Refusal.NO_RUNS:
        return _("There is no finished judge run to publish.")
    if refusal == Refusal.MIXED_VERSIONS:
        return _(
            "These runs come from different judge versions; a leaderboard is published from "
            "the runs of one version, the one the gate evaluated."
        )
    if refusal == Refusal.RUNS_UNFINISHED:
        return _("Only finished runs can be published.")
    if refusal == Refusal.NOT_EVALUATED:
        return _(
            "%(judge)s has not been checked against the experts on this benchmark: record a "
            "gate evaluation of one of its runs on a review round first."
        ) % {"judge": judge or _("This judge version")}
    values = {
        "id": evaluation.pk,
        "round": evaluation.round.name,
        "run": evaluation.run_id,
        "judge": evaluation.judge_name or evaluation.judge_version.label,
    }
    if refusal == Refusal.FAILED:
        return _(
            "%(judge)s failed the gate: evaluation #%(id)d (round %(round)s, run #%(run)d) "
            "found agreement %(a)s on %(n)d units, threshold %(t)s (%(rule)s). Every round "
            "this judge version was judged on stays in its evidence: only a later round that "
            "makes the pooled evidence pass can overturn it."
        ) % {
            **values,
            "a": _percent(evaluation.agreement),
            "n": evaluation.units,
            "t": _percent(evaluation.threshold),
            "rule": evaluation.get_rule_display(),
        }
    if refusal == Refusal.RUBRICS_CHANGED:
        return _(
            "%(n)d cases of this board were judged on rubric versions that changed since the "
            "round %(round)s of evaluation #%(id)d. Evaluate the judge on a newer round, or "
            "allow such boards in the benchmark's gate settings."
        ) % {**values, "n": decision.rubric_changes}
    if refusal == Refusal.POLICY_CHANGED:
        return _(
            "Evaluation #%(id)d of %(judge)s was decided under %(rule)s at threshold %(t)s; "
            "the benchmark's gate policy has changed since. Record a new evaluation under "
            "the policy in force before publishing."
        ) % {**values, "rule": evaluation.get_rule_display(), "t": _percent(evaluation.threshold)}
    if refusal == Refusal.JUDGE_BIASED:
        return _(
            "The experts' votes in the round %(round)s show %(judge)s surely more lenient or "
            "strict than the gate allows with: %(systems)s. Its scores for them would "
            "mislead; see the corrected board."
        ) % {**values, "systems": ", ".join(decision.biased)}
    if refusal == Refusal.JUDGE_DRIFTED:
        return _(
            "%(judge)s drifted: the drift test flagged a change in its agreement with the "
            "experts on the anchor responses on %(date)s, after evaluation #%(id)d. Record a "
            "new gate evaluation before publishing; see the judge's drift page."
        ) % {
            **values,
            "date": formats.date_format(
                timezone.localtime(decision.drifted_since), "DATETIME_FORMAT"
            ),
        }
    if refusal == Refusal.PUBLISHER_RATED:
        return (
            _(
                "You rated items in the round %(round)s that evaluation #%(id)d rests on. The "
                "gate needs evidence that is independent of the person who publishes it: ask a "
                "colleague to publish."
            )
            % values
        )
    return ""


def validation_text(evaluation, rubric_changes: int = 0) -> str:
    """What a published board rests on, in one sentence."""
    text = _(
        "Validated by gate evaluation #%(id)d: %(judge)s agreed with the experts' majority on "
        "%(a)s of %(n)d units of the round %(round)s (threshold %(t)s, %(rule)s)."
    ) % {
        "id": evaluation.pk,
        "judge": evaluation.judge_name or evaluation.judge_version.label,
        "a": _percent(evaluation.agreement),
        "n": evaluation.units,
        "round": evaluation.round.name,
        "t": _percent(evaluation.threshold),
        "rule": evaluation.get_rule_display(),
    }
    if rubric_changes:
        text += " " + _(
            "Note: %(n)d cases were judged on rubric versions that changed since that round."
        ) % {"n": rubric_changes}
    return text


# Rubric health's flags (leaderboard.stats.criterion_health), as the reader sees them.
HEALTH_FLAGS = {
    "ambiguous": gettext_lazy("ambiguous: experts split on it"),
    "judge_misreads": gettext_lazy("the judge misreads it"),
    "not_discriminating": gettext_lazy("does not separate systems"),
}


def health_flag_text(flag: str) -> str:
    return str(HEALTH_FLAGS.get(flag, flag))


def health_evidence_text(row) -> str:
    """One criterion's health (a `CriterionHealth`) as the evidence a revision answers,
    short enough for a change note: the flags, then each measure with its counts."""
    found, counts = row.health, row.health.counts
    parts = [
        _("experts unanimous on %(agreed)d of %(units)d units")
        % {"agreed": counts.unanimous, "units": counts.rated},
        _("judge disagrees with the majority on %(disagree)d of %(units)d (95%%: %(range)s)")
        % {
            "disagree": counts.disagreements,
            "units": counts.judged,
            "range": "—"
            if found.disagreement_95.low is None
            else f"{_percent(found.disagreement_95.low)}–{_percent(found.disagreement_95.high)}",
        },
        _("discrimination %(value)s over %(systems)d systems")
        % {"value": _percent(found.discrimination.value), "systems": found.systems},
    ]
    return _("Rubric health of v%(version)d #%(position)d, %(flags)s: %(measures)s") % {
        "version": row.version,
        "position": row.position,
        "flags": "; ".join(health_flag_text(flag) for flag in found.flags) or _("no flag"),
        "measures": "; ".join(parts),
    }
