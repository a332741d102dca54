"""The corrected board as the page shows it: per system, the overall numbers, the rank set,
one sentence in plain words, and the abilities; the bias test in words."""

from django.utils.translation import gettext as _

from leaderboard.boards.selectors.scores import heatmap_columns
from leaderboard.corrected.wording import reading, reason_words


def _entry(entry: dict) -> dict:
    return {**entry, "reason_text": reason_words(entry["reason"])}


def _rank_text(row: dict) -> str:
    if row["rank_low"] is None:
        return ""
    if row["rank_low"] == row["rank_high"]:
        return str(row["rank_low"])
    return f"{row['rank_low']}–{row['rank_high']}"


def corrected_view(payload: dict) -> dict:
    """What the page's section shows of `payload` (one query, for the abilities' names)."""
    groups = heatmap_columns(
        labels=[label for row in payload["rows"] for label in row["abilities"]]
    )
    names = [(a["label"], a["name"]) for group in groups for a in group["abilities"]]
    rows = [
        {
            "system": row["system"],
            "overall": _entry(row["overall"]),
            "ranks": _rank_text(row),
            "reading": reading(row["system"], row["overall"]),
            "abilities": [
                (name, _entry(row["abilities"][label]))
                for label, name in names
                if label in row["abilities"]
            ],
        }
        for row in payload["rows"]
    ]
    test = payload["bias_test"]
    if test["p_value"] is None:
        test_text = _("The test of equal bias is undefined: %(reason)s.") % {
            "reason": reason_words(test["reason"])
        }
    elif test["p_value"] < 0.05:
        test_text = _(
            "The judge's bias differs between systems (p = %(p)s): its scores favour some "
            "systems over others, so its ranking may not be the experts'."
        ) % {"p": f"{test['p_value']:.3g}"}
    else:
        test_text = _(
            "The data show no difference in the judge's bias between systems (p = %(p)s)."
        ) % {"p": f"{test['p_value']:.3g}"}
    beyond = [
        _(
            "The judge's bias on %(system)s lies wholly outside ±%(margin)s points: "
            "%(bias)s (95%% interval %(low)s to %(high)s)."
        )
        % {
            "system": item["system"],
            "margin": f"{test['margin']:g}",
            "bias": f"{item['bias']:+.1f}",
            "low": f"{item['ci_low']:.1f}",
            "high": f"{item['ci_high']:.1f}",
        }
        for item in test["beyond_margin"]
    ]
    return {
        "beyond_margin": beyond,
        "head": payload["corrected_by"],
        "rows": rows,
        "bias_test": test,
        "bias_test_text": test_text,
        "ranks_note": reason_words(payload["ranks"]["reason"]),
    }
