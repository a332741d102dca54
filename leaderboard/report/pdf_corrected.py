"""The report PDF's corrected board: when the report's round labelled responses of the
report's runs, per system the judge's score, the corrected score with its 95% interval, the
judge's bias with its interval, the labelled responses, lambda, the effective n and the
rank set, then one plain sentence per system and the test of equal bias. The numbers are
the page's (`leaderboard.corrected`), written as the page writes them."""

from django.utils.translation import gettext as _
from reportlab.lib.units import mm
from reportlab.platypus import CondPageBreak, Spacer

from judging.scoring import Profile
from leaderboard.boards.selectors.runs import BoardNotFound, board_runs
from leaderboard.corrected.board import corrected_board
from leaderboard.corrected.reading import corrected_view
from leaderboard.report.pdf_style import H2, PAGE_WIDTH, SMALL, paragraph, pdf_table


def corrected_of(evidence) -> dict | None:
    """The board of the evidence's runs corrected by its round (the page's default
    profile), or None when the round labelled none of their responses."""
    if evidence.round is None or not evidence.runs:
        return None
    try:
        board = board_runs(benchmark=evidence.benchmark, runs=[run.pk for run in evidence.runs])
    except BoardNotFound:
        return None
    payload = corrected_board(board=board, round_=evidence.round, profile=Profile.HEARTBENCH.value)
    return payload if payload["corrected_by"]["labelled_responses"] else None


def _d(value: float | None, places: int = 2) -> str:
    return "—" if value is None else f"{value:.{places}f}"


def _bounds(low: float | None, high: float | None) -> str:
    return "" if low is None else f"[{_d(low)}, {_d(high)}]"


def corrected_story(payload: dict) -> list:
    """The section's flowables, in the report's styles."""
    view = corrected_view(payload)
    head = view["head"]
    header = [
        _("Rank set"),
        _("System"),
        _("Judge"),
        _("Corrected"),
        # xgettext:no-python-format
        _("95% interval"),
        _("Judge bias"),
        # xgettext:no-python-format
        _("Bias 95% interval"),
        _("Labelled"),
        "λ",
        _("Effective n"),
    ]
    body = []
    for row in view["rows"]:
        o = row["overall"]
        corrected = _d(o["corrected"]) if o["corrected"] is not None else o["reason_text"]
        body.append(
            [
                row["ranks"] or "—",
                row["system"],
                _d(o["judge"]),
                corrected,
                _bounds(o["ci_low"], o["ci_high"]),
                _d(o["bias"]),
                _bounds(o["bias_ci_low"], o["bias_ci_high"]),
                o["labelled"],
                _d(o["lambda"]),
                _d(o["effective_n"], 0),
            ]
        )
    shares = (0.07, 0.15, 0.09, 0.09, 0.13, 0.09, 0.13, 0.08, 0.06, 0.11)
    story = [
        CondPageBreak(60 * mm),
        paragraph(_("Scores corrected by the experts' votes"), H2),
        paragraph(
            _(
                "Round %(round)s: %(n)s of its %(sampled)s sampled responses are labelled "
                "(every criterion has a majority of its %(raters)s raters)."
            )
            % {
                "round": head["round"],
                "n": head["labelled_responses"],
                "sampled": head["sampled_responses"],
                "raters": head["raters_per_item"],
            },
            SMALL,
        ),
        Spacer(1, 2 * mm),
        pdf_table([header, *body], [PAGE_WIDTH * share for share in shares]),
        Spacer(1, 2 * mm),
        *[paragraph(row["reading"], SMALL) for row in view["rows"]],
        paragraph(view["bias_test_text"], SMALL),
        *[paragraph(text, SMALL) for text in view["beyond_margin"]],
        Spacer(1, 4 * mm),
    ]
    return story
