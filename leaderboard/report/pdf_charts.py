"""The agreement report's charts as reportlab drawings: agreement per ability with its 95%
interval, the confusion matrix, and the judge's against the experts' hit rate per system.
Labels in Chinese are drawn with the CID font STSong-Light, which every PDF reader has."""

import re
from collections.abc import Sequence

from reportlab.graphics.shapes import Drawing, Line, Rect, String
from reportlab.lib import colors
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont

from leaderboard.report.typed import Confusion

LATIN = "Helvetica"
LATIN_BOLD = "Helvetica-Bold"
CJK = "STSong-Light"
CJK_CHARS = re.compile(r"[\u2e80-\u9fff\u3000-\u303f\uf900-\ufaff\uff00-\uffef]")

ACCENT = colors.HexColor("#1f5fbf")
PALE = colors.HexColor("#c7d6ef")
HUMAN = colors.HexColor("#d97a1e")
INK = colors.HexColor("#1b1f24")
GRID = colors.HexColor("#c9ced6")
# The confusion matrix is coloured by what a cell means, not by its count: the diagonal
# (judge and experts agree) in greens, the other two cells (they disagree) in reds, each
# pale enough for the black count on it.
AGREE = colors.HexColor("#cde8d3")
AGREE_EDGE = colors.HexColor("#1d7a3a")
DISAGREE = colors.HexColor("#f5d0cc")
DISAGREE_EDGE = colors.HexColor("#b3261e")

pdfmetrics.registerFont(UnicodeCIDFont(CJK))


def font_for(text: str, bold: bool = False) -> str:
    if CJK_CHARS.search(text):
        return CJK
    return LATIN_BOLD if bold else LATIN


def label(x: float, y: float, text: str, size: float = 8, anchor: str = "start", **kw) -> String:
    return String(
        x, y, text, fontName=font_for(text), fontSize=size, textAnchor=anchor, fillColor=INK, **kw
    )


def fit(text: str, width: float, size: float) -> str:
    """Shorten a label to `width` points, with an ellipsis, so it never runs into the bars."""
    font = font_for(text)
    if pdfmetrics.stringWidth(text, font, size) <= width:
        return text
    while text and pdfmetrics.stringWidth(text + "…", font, size) > width:
        text = text[:-1]
    return text + "…"


def _axis(drawing: Drawing, left: float, right: float, top: float, bottom: float) -> None:
    for step in range(5):
        x = left + (right - left) * step / 4
        drawing.add(Line(x, bottom, x, top, strokeColor=GRID, strokeWidth=0.4))
        drawing.add(label(x, bottom - 10, f"{step * 25}%", 7, "middle"))


def ability_chart(
    rows: dict[str, dict], *, threshold: float, width: float, note: str, legend: str
) -> Drawing:
    """One horizontal bar per ability (the point estimate) with a whisker for its Wilson 95%
    interval, and the gate's threshold as a dashed line."""
    row_height, label_width, top_pad, bottom_pad = 16, 130, 14, 34
    height = top_pad + bottom_pad + row_height * max(len(rows), 1)
    drawing = Drawing(width, height)
    left, right = label_width, width - 10
    top, bottom = height - top_pad, bottom_pad
    _axis(drawing, left, right, top, bottom)

    def at(value: float) -> float:
        return left + (right - left) * value

    for index, (name, row) in enumerate(rows.items()):
        y = top - row_height * (index + 1) + 4
        drawing.add(label(left - 4, y + 2, fit(name, label_width - 8, 8), 8, "end"))
        value = row.get("percent_agreement")
        if value is None:
            drawing.add(label(left + 4, y + 2, note, 7))
            continue
        drawing.add(Rect(left, y, at(value) - left, 9, fillColor=ACCENT, strokeColor=None))
        interval = row.get("wilson_95")
        if interval:
            low, high = at(interval[0]), at(interval[1])
            middle = y + 4.5
            drawing.add(Line(low, middle, high, middle, strokeColor=INK, strokeWidth=0.8))
            for x in (low, high):
                drawing.add(Line(x, middle - 3, x, middle + 3, strokeColor=INK, strokeWidth=0.8))
    if not rows:
        drawing.add(label(left + 4, top - row_height + 6, note, 8))
    x = at(threshold)
    drawing.add(Line(x, bottom, x, top, strokeColor=HUMAN, strokeWidth=1, strokeDashArray=[3, 2]))
    drawing.add(Rect(left, 4, 10, 6, fillColor=ACCENT, strokeColor=None))
    drawing.add(label(left + 14, 4, legend, 7))
    return drawing


def confusion_colours(judge_hit: bool, experts_hit: bool) -> tuple[colors.Color, colors.Color]:
    """(fill, edge) of a confusion matrix cell: the agreement family where the judge and
    the experts say the same, the disagreement family where they differ."""
    return (AGREE, AGREE_EDGE) if judge_hit == experts_hit else (DISAGREE, DISAGREE_EDGE)


def confusion_chart(confusion: Confusion, *, labels: dict[str, str], size: float = 170) -> Drawing:
    """The 2x2 matrix, judge in rows and experts in columns, coloured by agreement (the
    diagonal) and disagreement, with a legend below."""
    cell, left, top_pad, bottom_pad = size / 2, 70, 24, 20
    drawing = Drawing(left + size + 10, size + top_pad + bottom_pad)
    cells = [
        [confusion.both_hit, confusion.judge_only],
        [confusion.human_only, confusion.both_miss],
    ]
    top = size + bottom_pad
    drawing.add(label(left + cell / 2, top + 8, labels["experts_hit"], 8, "middle"))
    drawing.add(label(left + cell * 1.5, top + 8, labels["experts_miss"], 8, "middle"))
    for r, row_label in enumerate((labels["judge_hit"], labels["judge_miss"])):
        y = top - cell * (r + 1)
        drawing.add(label(left - 4, y + cell / 2 - 3, row_label, 8, "end"))
        for c, count in enumerate(cells[r]):
            fill, edge = confusion_colours(r == 0, c == 0)
            drawing.add(
                Rect(
                    left + cell * c + 1,
                    y + 1,
                    cell - 2,
                    cell - 2,
                    fillColor=fill,
                    strokeColor=edge,
                    strokeWidth=0.8,
                )
            )
            drawing.add(
                String(
                    left + cell * c + cell / 2,
                    y + cell / 2 - 5,
                    str(count),
                    fontName=LATIN_BOLD,
                    fontSize=14,
                    textAnchor="middle",
                    fillColor=INK,
                )
            )
    for x, key, judge_hit in ((left, "agree", True), (left + cell, "disagree", False)):
        fill, edge = confusion_colours(judge_hit, True)
        drawing.add(Rect(x, 4, 10, 8, fillColor=fill, strokeColor=edge, strokeWidth=0.8))
        drawing.add(label(x + 14, 5, fit(labels[key], cell - 16, 7), 7))
    return drawing


def system_chart(
    rows: Sequence[tuple[str, float | None, float | None]],
    *,
    width: float,
    legend: tuple[str, str],
    note: str,
) -> Drawing:
    """Per system, two bars: the share of criteria the judge marks as met and the share the
    experts' majority does, over the same units."""
    group, label_width, top_pad, bottom_pad = 24, 130, 8, 34
    height = top_pad + bottom_pad + group * max(len(rows), 1)
    drawing = Drawing(width, height)
    left, right = label_width, width - 10
    top, bottom = height - top_pad, bottom_pad
    _axis(drawing, left, right, top, bottom)
    for index, (name, judge, human) in enumerate(rows):
        y = top - group * (index + 1) + 4
        drawing.add(label(left - 4, y + 6, fit(name, label_width - 8, 8), 8, "end"))
        for offset, value, colour in ((8, judge, ACCENT), (0, human, HUMAN)):
            if value is None:
                drawing.add(label(left + 4, y + offset, note, 7))
            else:
                width_ = (right - left) * value
                drawing.add(Rect(left, y + offset, width_, 7, fillColor=colour, strokeColor=None))
    if not rows:
        drawing.add(label(left + 4, top - group + 8, note, 8))
    for x, text, colour in zip((left, left + 110), legend, (ACCENT, HUMAN), strict=True):
        drawing.add(Rect(x, 4, 10, 6, fillColor=colour, strokeColor=None))
        drawing.add(label(x + 14, 4, text, 7))
    return drawing
