"""The audit log's details as a reader sees them: short translated sentences, one per fact,
instead of the stored `key=value` pairs. The exports keep the stored JSON for machines."""

from collections.abc import Iterable

from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation.models import ReviewRound

# What each stored key means. A key that is not here (a detail added later) is still shown,
# under its own name, so nothing recorded is ever hidden.
LABELS = {
    "round": gettext_lazy("Round"),
    "corrected_by": gettext_lazy("Corrected by"),
    "chances_from": gettext_lazy("Chances from"),
    "round_id": gettext_lazy("Round number"),
    "items": gettext_lazy("Items"),
    "item": gettext_lazy("Item"),
    "experts": gettext_lazy("Experts"),
    "fraction": gettext_lazy("Share of the cases drawn"),
    "seed": gettext_lazy("Random seed"),
    "calibration_share": gettext_lazy("Share of the items in the calibration part"),
    "split_seed": gettext_lazy("Seed of the calibration split"),
    "derived_from_version": gettext_lazy("Derived from version"),
    "derived_from_round": gettext_lazy("Derived from the calibration part of the round"),
    "raters_per_item": gettext_lazy("Raters per item"),
    "added": gettext_lazy("Items added"),
    "started_not_submitted": gettext_lazy("Items started but not submitted"),
    "unstarted": gettext_lazy("Items not started"),
    "items_short_of_raters": gettext_lazy("Items short of raters"),
    "released": gettext_lazy("Items given back to the pool"),
    "because": gettext_lazy("Reason"),
    "user": gettext_lazy("Person"),
    "roles": gettext_lazy("Roles"),
    "invitation": gettext_lazy("Invitation number"),
    "invited_by": gettext_lazy("Invited by"),
    "expires": gettext_lazy("Expires"),
    "specialities": gettext_lazy("Specialities"),
    "number": gettext_lazy("Version"),
    "note": gettext_lazy("Note"),
    "parent": gettext_lazy("Version the draft started from"),
    "latest": gettext_lazy("Latest published version"),
    "base": gettext_lazy("Version the draft started from"),
    "conflicts": gettext_lazy("Conflicting rows"),
    "cases": gettext_lazy("Cases"),
    "cases_created": gettext_lazy("New cases"),
    "rubric_versions_created": gettext_lazy("New rubric versions"),
    "entry": gettext_lazy("FAQ entry number"),
    "example": gettext_lazy("Worked example number"),
    "question": gettext_lazy("Question"),
    "answer": gettext_lazy("Answer"),
    "abilities": gettext_lazy("Abilities"),
    "ability": gettext_lazy("Ability"),
    "title": gettext_lazy("Title"),
    "body": gettext_lazy("Text"),
    "text": gettext_lazy("Text"),
    "before": gettext_lazy("Before the change"),
    "config": gettext_lazy("Judge configuration"),
    "current_version": gettext_lazy("Current version"),
    "new_version": gettext_lazy("A new version was made"),
    "model": gettext_lazy("Model"),
    "changed": gettext_lazy("Changed settings"),
    "run": gettext_lazy("Judge run number"),
    "kind": gettext_lazy("Kind"),
    "judge": gettext_lazy("Judge"),
    "systems": gettext_lazy("Systems"),
    "tasks": gettext_lazy("Tasks"),
    "evaluation": gettext_lazy("Gate evaluation number"),
    "gate_evaluation": gettext_lazy("Gate evaluation number"),
    "passed": gettext_lazy("Passed the gate"),
    "units": gettext_lazy("Units compared"),
    "snapshot": gettext_lazy("Published snapshot number"),
    "profile": gettext_lazy("Scoring profile"),
    "runs": gettext_lazy("Judge runs"),
    "decision": gettext_lazy("Decision"),
    "decided_at": gettext_lazy("Decided at item"),
    "items_total": gettext_lazy("Items in the round"),
    "ratings_needed": gettext_lazy("Ratings needed"),
    "criteria": gettext_lazy("Criteria decided"),
    "adjudicated": gettext_lazy("Criteria decided"),
    "length": gettext_lazy("Length in characters"),
    "alpha": gettext_lazy("Allowed chance of a wrong decision"),
    "threshold": gettext_lazy("Threshold"),
    "close_when_decided": gettext_lazy("Close the round once decided"),
    "judge_runs": gettext_lazy("Judge runs"),
    "ratings_planned": gettext_lazy("Ratings planned"),
    "restored": gettext_lazy("Restored version"),
    "judge_name": gettext_lazy("Judge"),
    "decisions": gettext_lazy("Decisions"),
    "sampling": capfirst(ReviewRound._meta.get_field("sampling").verbose_name),
    "criterion": gettext_lazy("Criterion"),
    "difficulty_changed": gettext_lazy("Cases whose difficulty changed"),
    "scene_changed": gettext_lazy("Cases whose scene changed"),
    "chances_before": gettext_lazy("Items whose earlier chance was kept"),
    "was_reference": gettext_lazy("Already a reference item"),
    "answers": gettext_lazy("Reference answers"),
    "hit": gettext_lazy("Met"),
}
# Kept for the evidence, one entry per item: the log says how many, the exports the values.
_COUNTED = {"chances_before"}
# Values the application itself writes, shown in the reader's language (the same words,
# and so the same translations, as the pages that show them elsewhere).
_STATUS = dict(ReviewRound.Status.choices)
_VALUES = {
    "decision": {
        "pass": gettext_lazy("the judge passes"),
        "fail": gettext_lazy("the judge fails"),
        "met": gettext_lazy("met"),
        "not_met": gettext_lazy("not met"),
        "undecided": gettext_lazy("left undecided"),
    },
    "kind": {"judge": gettext_lazy("judge run"), "generation": gettext_lazy("generation run")},
    "sampling": dict(ReviewRound.Sampling.choices),
    # Why Concord itself changed a round's status (leaderboard.sequential.services).
    "because": {"sequential test decided": gettext_lazy("the sequential test decided")},
    "profile": {
        "heartbench": gettext_lazy("HeartBench (the paper's catastrophic rule)"),
        "heartbench-code": gettext_lazy("HeartBench (the released code's catastrophic rule)"),
    },
}
_LONG = 160  # a longer text (an FAQ answer before an edit) is cut, with an ellipsis


def _value(value) -> str:
    if value is None or value == "" or value == []:
        return "—"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict):
        return "; ".join(f"{_label(k)}: {_shown(k, v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_value(v) for v in value)
    text = str(value)
    if text in _STATUS:
        return str(_STATUS[text])
    return text if len(text) <= _LONG else text[: _LONG - 1] + "…"


def _shown(key: str, value) -> str:
    known = _VALUES.get(key, {})
    return str(known[value]) if isinstance(value, str) and value in known else _value(value)


def _label(key: str) -> str:
    label = LABELS.get(key)
    return str(label) if label is not None else key.replace("_", " ")


def details_sentences(details: dict) -> list[str]:
    """One sentence per recorded fact; a change (`from`, `to`) is one sentence."""
    sentences = []
    keys: Iterable[str] = details.keys()
    if "from" in details and "to" in details:
        sentences.append(
            _("Changed from %(before)s to %(after)s.")
            % {"before": _value(details["from"]), "after": _value(details["to"])}
        )
        keys = [key for key in keys if key not in ("from", "to")]
    for key in keys:
        value = details[key]
        shown = (
            str(len(value)) if key in _COUNTED and isinstance(value, dict) else _shown(key, value)
        )
        sentences.append(_("%(label)s: %(value)s.") % {"label": _label(key), "value": shown})
    return sentences
