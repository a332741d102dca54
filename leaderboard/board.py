"""The leaderboard as the pages show it: the same rows (live or stored in a snapshot) turned
into the ranking, the ability heatmap grouped by category, the category and scene tables.

Rows come from `leaderboard.selectors.scores.leaderboard_rows`; snapshots published before a
field existed simply lack it, so every field is read with a default.
"""

from typing import Any

from django.utils.translation import gettext as _

from leaderboard.selectors.scores import heatmap_columns
from leaderboard.wording import reason_text, scene_name

# Sequential blue scale: lightness falls from LIGHTEST (score 0) to DARKEST (score 100).
# Text stays near-black; at the darkest shade the contrast is still about 5.8:1 (WCAG AA).
HUE, SATURATION, LIGHTEST, DARKEST = 210, 65, 97, 60


def heat_style(score: float) -> str:
    share = min(max(score, 0.0), 100.0) / 100.0
    lightness = LIGHTEST - share * (LIGHTEST - DARKEST)
    return f"background-color: hsl({HUE} {SATURATION}% {lightness:.1f}%); color: #111"


def _cell(value: float | None, title: str) -> dict[str, Any]:
    if value is None:
        return {"value": None, "style": "", "title": title}
    return {"value": value, "style": heat_style(value), "title": title}


def _ability_title(row: dict[str, Any], ability: dict[str, str], counts: dict) -> str:
    if ability["label"] not in row.get("abilities", {}):
        return _(
            "No scored case of %(system)s contains this ability, so it has no score (not 0)."
        ) % {"system": row["system"]}
    if ability["label"] not in counts:
        return ability["name"]
    return _("%(ability)s: mean over %(n)s cases") % {
        "ability": ability["name"],
        "n": counts[ability["label"]],
    }


def board(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything the leaderboard partial needs, from the rows alone plus the taxonomy's
    names (one query)."""
    groups = heatmap_columns(labels=[label for row in rows for label in row.get("abilities", {})])
    abilities = [ability for group in groups for ability in group["abilities"]]
    scenes = sorted({scene for row in rows for scene in row.get("scenes", {})})
    table = []
    for row in rows:
        scores = row.get("abilities", {})
        counts = row.get("ability_cases", {})
        scene_scores = row.get("scenes", {})
        scene_counts = row.get("scene_cases", {})
        undefined = {field: reason_text(text) for field, text in row.get("undefined", {}).items()}
        table.append(
            {
                **row,
                "undefined": undefined,
                "ability_cells": [
                    _cell(scores.get(a["label"]), _ability_title(row, a, counts)) for a in abilities
                ],
                "category_cells": [
                    _cell(
                        row.get("categories", {}).get(group["key"]),
                        group["name"]
                        if group["key"] in row.get("categories", {})
                        else _("No ability of this category was scored for %(system)s.")
                        % {"system": row["system"]},
                    )
                    for group in groups
                ],
                "scene_cells": [
                    _cell(
                        scene_scores.get(scene),
                        _("%(scene)s: %(n)s cases")
                        % {"scene": scene_name(scene), "n": scene_counts.get(scene, 0)}
                        if scene_scores.get(scene) is not None
                        else undefined.get(f"scenes.{scene}")
                        or _("%(system)s has no scored case in this scene.")
                        % {"system": row["system"]},
                    )
                    for scene in scenes
                ],
            }
        )
    resamples = next((row["bootstrap"]["resamples"] for row in rows if "bootstrap" in row), None)
    return {
        "rows": table,
        "groups": groups,
        "abilities": abilities,
        "scenes": [{"key": scene, "name": scene_name(scene)} for scene in scenes],
        "resamples": resamples,
        "has_intervals": any("overall_95" in row for row in rows),
    }
