"""The report PDF's look: page width, fonts and styles, and the paragraph and table makers
whose fonts draw Chinese, shared by every section of the report."""

from collections.abc import Sequence
from xml.sax.saxutils import escape

from django.utils.translation import gettext as _
from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, Table, TableStyle

from leaderboard.report.pdf_charts import CJK, CJK_CHARS, LATIN, LATIN_BOLD
from leaderboard.report.reading import coefficient, percent
from leaderboard.report.wording import reason_text

PAGE_WIDTH = A4[0] - 36 * mm
BODY = ParagraphStyle("body", fontName=LATIN, fontSize=9, leading=12, alignment=TA_LEFT)
SMALL = ParagraphStyle("small", parent=BODY, fontSize=7.5, leading=9.5)
# Headings keep a line height of at least 1.25 times their size and leave room below, so
# the lines after them do not crowd them.
H1 = ParagraphStyle("h1", parent=BODY, fontName=LATIN_BOLD, fontSize=16, leading=21, spaceAfter=6)
H2 = ParagraphStyle(
    "h2", parent=BODY, fontName=LATIN_BOLD, fontSize=11.5, leading=15, spaceBefore=2, spaceAfter=5
)
PASSED = colors.HexColor("#1d7a3a")
FAILED = colors.HexColor("#b3261e")
GATE = ParagraphStyle("gate", parent=H2, fontSize=14, leading=18, spaceAfter=4)
HEADINGS = (H1, H2, GATE)


def mixed(text: str) -> str:
    """Paragraph markup for text that may mix Latin and Chinese: runs of Chinese characters
    in the CID font, everything else in Helvetica."""
    out, last = [], 0
    for match in CJK_CHARS.finditer(text):
        out.append(escape(text[last : match.start()]))
        out.append(f'<font name="{CJK}">{escape(match.group())}</font>')
        last = match.end()
    out.append(escape(text[last:]))
    return "".join(out)


def paragraph(text: str, style: ParagraphStyle = BODY) -> Paragraph:
    if CJK_CHARS.search(text):
        style = ParagraphStyle(style.name + "-cjk", parent=style, wordWrap="CJK")
    return Paragraph(mixed(text), style)


def pct(value: float | None) -> str:
    """A share as the page writes it (one decimal); empty when there is none."""
    return "" if value is None else percent(value)


def interval_text(bounds: Sequence[float] | None) -> str:
    return "" if not bounds else f"{percent(bounds[0])[:-1]}–{percent(bounds[1])}"


def statistic_value(kind: str, value: float | None, reason: str | None) -> str:
    """A statistic as the page shows it: a share as a percentage with one decimal, a
    coefficient with two decimals, an undefined one with its reason."""
    if value is None:
        return number_text(None, reason)
    return percent(value) if kind == "share" else coefficient(value)


def number_text(value: float | None, reason: str | None) -> str:
    if value is None:
        return _("undefined: %(reason)s") % {"reason": reason_text(reason) or _("no value")}
    return f"{value:.4f}".rstrip("0").rstrip(".") if value != 0 else "0"


def pdf_table(rows: list[list], widths: Sequence[float], header: bool = True) -> Table:
    cells = [
        [c if isinstance(c, Paragraph) else paragraph(str(c), SMALL) for c in row] for row in rows
    ]
    table = Table(cells, colWidths=widths, repeatRows=1 if header else 0)
    style = [
        ("GRID", (0, 0), (-1, -1), 0.3, colors.HexColor("#c9ced6")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 2),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
    ]
    if header:
        style.append(("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eef1f5")))
    table.setStyle(TableStyle(style))
    return table
