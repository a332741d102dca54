"""The judge panel's result shaped for the page: one line per margin in plain words, one
row per expert across the margins, and the F1 table."""

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from leaderboard.report.reading import percent
from leaderboard.report.wording_reasons import reason_text


def _margin_sentence(key: str, test: dict) -> str:
    if test["winning_rate"] is None:
        return _("At margin %(eps)s there is no result: %(reason)s.") % {
            "eps": key,
            "reason": reason_text(test["reason"]),
        }
    won = sum(1 for expert in test["experts"] if expert["judge_wins"])
    values = {"eps": key, "won": won, "tested": test["experts_tested"]}
    if test["passed"]:
        return (
            ngettext(
                "At margin %(eps)s the judge is as good as %(won)s of %(tested)s expert: it "
                "passes (half or more are needed).",
                "At margin %(eps)s the judge is as good as %(won)s of %(tested)s experts: it "
                "passes (half or more are needed).",
                test["experts_tested"],
            )
            % values
        )
    return (
        ngettext(
            "At margin %(eps)s the judge is as good as %(won)s of %(tested)s expert: it does "
            "not pass (half or more are needed).",
            "At margin %(eps)s the judge is as good as %(won)s of %(tested)s experts: it does "
            "not pass (half or more are needed).",
            test["experts_tested"],
        )
        % values
    )


def panel_view(payload: dict) -> dict:
    margins = [
        {
            "key": key,
            "test": test,
            "rate": None if test["winning_rate"] is None else percent(test["winning_rate"]),
            "advantage": None
            if test["advantage_probability"] is None
            else percent(test["advantage_probability"]),
            "sentence": _margin_sentence(key, test),
            "reason": reason_text(test["reason"]) if test["reason"] else "",
        }
        for key, test in payload["alt_test"].items()
    ]
    experts: dict[str, dict] = {}
    for margin in margins:
        for entry in margin["test"]["experts"]:
            row = experts.setdefault(
                entry["expert"],
                {
                    "expert": entry["expert"],
                    "items": entry["items"],
                    "instances": entry["instances"],
                    "judge_advantage": entry["judge_advantage"],
                    "expert_advantage": entry["expert_advantage"],
                    "reason": reason_text(entry["reason"]) if entry["reason"] else "",
                    "cells": [],
                },
            )
            row["cells"].append(entry)
    f1 = payload["f1"]
    return {
        "margins": margins,
        "experts": list(experts.values()),
        "f1_judge": f1["judge"],
        "f1_experts": f1["experts"],
        "f1_judge_reason": reason_text(f1["judge"]["reason"]) if f1["judge"]["reason"] else "",
        "f1_experts_reasons": {
            e["rater"]: reason_text(e["reason"]) for e in f1["experts"] if e["reason"]
        },
    }
