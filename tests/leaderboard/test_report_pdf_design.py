"""How the agreement PDF draws: the confusion matrix coloured by what a cell means (agree
or disagree) rather than by its count, headings with room below them, and numbers written
as the page writes them. Read through the functions and styles that choose them."""

from django.utils import translation
from reportlab.graphics.shapes import Rect, String
from reportlab.lib import colors

from leaderboard.report.pdf_charts import confusion_chart, confusion_colours
from leaderboard.report.pdf_style import BODY, HEADINGS, statistic_value
from leaderboard.report.typed import Confusion

LABELS = {
    "experts_hit": "experts: hit",
    "experts_miss": "experts: miss",
    "judge_hit": "judge: hit",
    "judge_miss": "judge: miss",
    "agree": "agree",
    "disagree": "disagree",
}


def _cells(drawing) -> dict[str, colors.Color]:
    """Each count drawn in the matrix, with the fill of the square under it."""
    squares = [s for s in drawing.contents if isinstance(s, Rect) and s.width > 20]
    found = {}
    for text in (s for s in drawing.contents if isinstance(s, String) and s.fontSize == 14):
        under = next(
            q for q in squares if q.x <= text.x <= q.x + q.width and q.y <= text.y <= q.y + q.height
        )
        found[text.text] = under.fillColor
    return found


def _greenish(colour) -> bool:
    return colour.green > colour.red


def test_the_diagonal_and_the_other_cells_are_two_colour_families():
    agree_hit, agree_miss = confusion_colours(True, True), confusion_colours(False, False)
    disagree = confusion_colours(True, False), confusion_colours(False, True)
    assert agree_hit == agree_miss and disagree[0] == disagree[1] != agree_hit
    assert _greenish(agree_hit[0]) and not _greenish(disagree[0][0])


def test_the_matrix_colours_do_not_follow_the_counts():
    # The diagonal has the largest counts in one matrix and the smallest in the other: the
    # colours stay where they mean agreement and disagreement.
    for counts in ((50, 1, 2, 40), (1, 50, 40, 2)):
        both_hit, judge_only, human_only, both_miss = counts
        drawing = confusion_chart(
            Confusion(
                both_hit=both_hit,
                judge_only=judge_only,
                human_only=human_only,
                both_miss=both_miss,
                sensitivity=None,
                specificity=None,
                prevalence=None,
            ),
            labels=LABELS,
        )
        fills = _cells(drawing)
        agree, disagree = confusion_colours(True, True)[0], confusion_colours(True, False)[0]
        assert fills[str(both_hit)] == fills[str(both_miss)] == agree
        assert fills[str(judge_only)] == fills[str(human_only)] == disagree
        legend = [s.text for s in drawing.contents if isinstance(s, String) and s.fontSize == 7]
        assert legend == ["agree", "disagree"]


def test_headings_leave_room_for_the_lines_after_them():
    for style in HEADINGS:
        assert style.leading >= 1.25 * style.fontSize, style.name
        assert style.spaceAfter >= 4, style.name
        assert style.spaceAfter + style.leading - style.fontSize > BODY.leading - BODY.fontSize


def test_statistics_are_written_as_the_page_writes_them():
    assert statistic_value("share", 0.8, None) == "80.0%"
    assert statistic_value("share", 0.12345, None) == "12.3%"
    assert statistic_value("coefficient", 0.4321, None) == "0.43"
    with translation.override("en"):
        assert statistic_value("coefficient", None, "no_units") == "undefined: no units"
    with translation.override("zh-hans"):
        assert "no_units" not in statistic_value("share", None, "no_units")
