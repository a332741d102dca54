"""The leaderboard as the pages show it: the same rows (live or stored in a snapshot) turned
into the ranking, the ability heatmap grouped by category, the category and scene tables.

Rows come from `leaderboard.boards.selectors.scores.leaderboard_rows`; snapshots published before a
field existed simply lack it, so every field is read with a default.
"""

from typing import Any

from django.utils.translation import gettext as _

from leaderboard.boards.selectors.scores import heatmap_columns
from leaderboard.report.wording import ability_abbreviation, reason_text, scene_name
from leaderboard.stats.ranks import band_text, rank_bands

# Sequential blue scale: lightness falls from LIGHTEST (score 0) to DARKEST (score 100), a
# wide enough range that 40 and 80 look different at a glance. The text is near-black or
# white, whichever contrasts more with the cell: at least 4.5:1 everywhere (WCAG AA).
HUE, SATURATION, LIGHTEST, DARKEST = 210, 70, 96, 24
DARK_TEXT, LIGHT_TEXT = "#000000", "#ffffff"


def heat_lightness(score: float) -> float:
    share = min(max(score, 0.0), 100.0) / 100.0
    return LIGHTEST - share * (LIGHTEST - DARKEST)


def _channel(value: float) -> float:
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def luminance_of_hsl(hue: float, saturation: float, lightness: float) -> float:
    """WCAG relative luminance of an HSL colour (percentages as 0..100)."""
    s, lum = saturation / 100.0, lightness / 100.0
    chroma = (1 - abs(2 * lum - 1)) * s
    x = chroma * (1 - abs((hue / 60.0) % 2 - 1))
    m = lum - chroma / 2
    sector = int(hue // 60) % 6
    r, g, b = [
        (chroma, x, 0),
        (x, chroma, 0),
        (0, chroma, x),
        (0, x, chroma),
        (x, 0, chroma),
        (chroma, 0, x),
    ][sector]
    red, green, blue = (_channel(v + m) for v in (r, g, b))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first: float, second: float) -> float:
    light, dark = max(first, second), min(first, second)
    return (light + 0.05) / (dark + 0.05)


def heat_colours(score: float) -> tuple[float, str]:
    """The cell's lightness and the text colour that reads best on it."""
    lightness = heat_lightness(score)
    background = luminance_of_hsl(HUE, SATURATION, lightness)
    dark = contrast(background, 0.0)
    light = contrast(background, 1.0)
    return lightness, DARK_TEXT if dark >= light else LIGHT_TEXT


def heat_style(score: float) -> str:
    lightness, text = heat_colours(score)
    return f"background-color: hsl({HUE} {SATURATION}% {lightness:.1f}%); color: {text}"


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
    bands = rank_bands(
        [row.get("overall") for row in rows], [row.get("overall_95") for row in rows]
    )
    for ability in abilities:
        ability["short"] = ability_abbreviation(ability["label"], ability["name"])
    table = []
    for row, band in zip(rows, bands, strict=True):
        scores = row.get("abilities", {})
        counts = row.get("ability_cases", {})
        scene_scores = row.get("scenes", {})
        scene_counts = row.get("scene_cases", {})
        undefined = {field: reason_text(text) for field, text in row.get("undefined", {}).items()}
        table.append(
            {
                **row,
                "undefined": undefined,
                "rank": band_text(band),
                "rank_shared": band is not None and band[0] != band[1],
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
        "shared_ranks": any(band is not None and band[0] != band[1] for band in bands),
    }
