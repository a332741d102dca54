"""The agreement report as a PDF (A4): identification, the gate, the numbers with n and
intervals, the exclusions, the three charts and the breakdown tables. Built from the same
report as the page (a stored one read back by AgreementReport.from_json); an undefined
statistic is written as such, with its reason."""

import io
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import (
    CondPageBreak,
    KeepTogether,
    SimpleDocTemplate,
    Spacer,
)

from annotation.consensus import majority
from leaderboard.report.agreement import Unit
from leaderboard.report.pdf_charts import (
    CJK,
    CJK_CHARS,
    LATIN,
    ability_chart,
    confusion_chart,
    system_chart,
)
from leaderboard.report.pdf_style import (
    BODY,
    FAILED,
    GATE,
    H1,
    H2,
    PAGE_WIDTH,
    PASSED,
    SMALL,
    interval_text,
    number_text,
    paragraph,
    pct,
    pdf_table,
    statistic_value,
)
from leaderboard.report.reading import STATISTICS, statistic_readings
from leaderboard.report.typed import AgreementReport
from leaderboard.report.wording import gate_rule_text, group_label, reason_text


@dataclass(frozen=True)
class Identification:
    benchmark: str
    round: str
    run: str
    generated_at: str


def _p_value(report: AgreementReport, undefined: dict) -> str:
    """As the page writes it: "p < 0.001" for tiny values, the exact value beside it."""
    p, log10 = report.binomial_p, report.binomial_log10_p
    if p is None and log10 is not None:
        return f"p < 10^{round(log10)}"
    if p is None:
        return "p = " + number_text(None, undefined.get("binomial_p"))
    if p < 0.001:
        return f"p < 0.001 (p = {p:.3g})"
    return f"p = {p:.3f}"


def system_hit_rates(units: Sequence[Unit]) -> list[tuple[str, float | None, float | None]]:
    """Per system, over the units with both a human majority and a judge verdict: the share
    the judge marks as met and the share the experts' majority does."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for unit in units:
        verdict = majority([hit for _, hit in unit.votes])
        if unit.judge is None or not verdict.is_majority:
            continue
        row = counts[unit.system]
        row[0] += 1
        row[1] += int(unit.judge)
        row[2] += int(bool(verdict.label))
    return [(system, judge / n, human / n) for system, (n, judge, human) in sorted(counts.items())]


def _breakdown(title: str, rows: dict[str, dict], undefined: dict, name: str) -> list:
    header = [
        _("Group"),
        _("Units"),
        _("Agreement"),
        # xgettext:no-python-format
        _("95% interval"),
    ]
    body = []
    for group, row in rows.items():
        agreement = pct(row["percent_agreement"]) or number_text(
            None, undefined.get(f"{name}.{group}")
        )
        label = group_label(group, name.removeprefix("by_"))
        body.append([label, row["units"], agreement, interval_text(row["wilson_95"])])
    if not body:
        body.append([_("no units"), "", "", ""])
    widths = [PAGE_WIDTH * share for share in (0.46, 0.12, 0.2, 0.22)]
    return [
        CondPageBreak(40 * mm),
        paragraph(title, H2),
        pdf_table([header, *body], widths),
        Spacer(1, 4 * mm),
    ]


def agreement_pdf_bytes(
    report: AgreementReport,
    *,
    ident: Identification,
    systems: Sequence[tuple[str, float | None, float | None]],
    corrected: dict | None = None,
) -> bytes:
    """The PDF of `report`; with `corrected` (leaderboard.report.pdf_corrected), the board
    corrected by the report's round follows the statistics."""
    undefined, gate = report.undefined, report.gate
    story: list = [
        paragraph(_("Judge–expert agreement report"), H1),
        Spacer(1, 2 * mm),
        pdf_table(
            [
                [_("Benchmark"), ident.benchmark],
                [_("Review round"), ident.round],
                [_("Judge run"), ident.run],
                [_("Generated at"), ident.generated_at],
            ],
            [PAGE_WIDTH * 0.25, PAGE_WIDTH * 0.75],
            header=False,
        ),
        Spacer(1, 4 * mm),
    ]

    verdict = _("Gate passed") if gate["passed"] else _("Gate not passed")
    verdict_style = ParagraphStyle(
        "gate-verdict", parent=GATE, textColor=PASSED if gate["passed"] else FAILED
    )
    point, excluded = report.percent_agreement, report.excluded
    agreement = (
        pct(point) if point is not None else number_text(None, undefined.get("percent_agreement"))
    )
    lines = [
        _("Agreement with the human majority: %(value)s (n = %(n)s units)")
        % {"value": agreement, "n": report.units},
        _("Wilson 95%% interval: %(value)s")
        % {
            "value": interval_text(report.wilson_95)
            or number_text(None, undefined.get("wilson_95"))
        },
        _(
            "Cluster bootstrap 95%% interval: %(value)s "
            "(%(resamples)s resamples of whole dialogues, seed %(seed)s)"
        )
        % {
            "value": interval_text(report.bootstrap_95)
            or number_text(None, undefined.get("bootstrap_95")),
            "resamples": report.bootstrap["resamples"],
            "seed": report.bootstrap["seed"],
        },
        *(
            [
                _("95%% interval weighted by the inverse inclusion probabilities: %(value)s")
                % {"value": interval_text(report.weighted_95)}
            ]
            if report.weighted_95
            else []
        ),
        _("Rule: %(rule)s") % {"rule": gate_rule_text(gate)},
        _("One-sided binomial test of agreement above the threshold: %(p)s")
        % {"p": _p_value(report, undefined)},
        _(
            "Excluded: %(ties)s ties, %(none)s without votes, %(failed)s whose judge call "
            "failed, %(missing)s not judged in this run, %(other)s judged on a different "
            "rubric version."
        )
        % {
            "ties": excluded.ties,
            "none": excluded.no_consensus,
            "failed": excluded.judge_failed,
            "missing": excluded.judge_missing,
            "other": excluded.judge_other_version,
        },
    ]
    if gate.get("reason"):
        lines.append(reason_text(gate["reason"]))
    story += [
        KeepTogether([paragraph(verdict, verdict_style), *[paragraph(line) for line in lines]])
    ]
    story.append(Spacer(1, 4 * mm))

    # As on the page: each statistic with a sentence on how to read it.
    readings = {reading.key: reading.text for reading in statistic_readings(report)}
    rows = [[_("Statistic"), _("Value"), _("How to read it")]]
    for key, title, kind in STATISTICS:
        if key == "percent_agreement":
            continue  # given above, with its intervals
        section, _dot, name = key.rpartition(".")
        value = report.statistic(key)
        reason = undefined.get(key) or undefined.get(name) or undefined.get(section)
        rows.append([str(title), statistic_value(kind, value, reason), readings.get(key, "")])
    matrix = confusion_chart(
        report.confusion,
        labels={
            "experts_hit": _("experts: hit"),
            "experts_miss": _("experts: miss"),
            "judge_hit": _("judge: hit"),
            "judge_miss": _("judge: miss"),
            "agree": _("agree"),
            "disagree": _("disagree"),
        },
    )
    story += [
        CondPageBreak(70 * mm),
        paragraph(_("Statistics"), H2),
        pdf_table(rows, [PAGE_WIDTH * 0.22, PAGE_WIDTH * 0.16, PAGE_WIDTH * 0.62]),
        Spacer(1, 3 * mm),
        KeepTogether([paragraph(_("Confusion matrix"), BODY), matrix]),
        Spacer(1, 4 * mm),
    ]

    if corrected is not None:
        from leaderboard.report.pdf_corrected import corrected_story

        story += corrected_story(corrected)
    no_units = _("undefined: no units")
    story += [
        KeepTogether(
            [
                paragraph(_("Agreement per ability"), H2),
                paragraph(
                    _(
                        "Bars: point estimate; whiskers: the Wilson interval (95%); "
                        "dashed line: the threshold."
                    ),
                    SMALL,
                ),
                ability_chart(
                    {group_label(k, "ability"): row for k, row in report.by_ability.items()},
                    threshold=gate["threshold"],
                    width=PAGE_WIDTH,
                    note=no_units,
                    legend=_("agreement with the human majority"),
                ),
            ]
        ),
        Spacer(1, 4 * mm),
        KeepTogether(
            [
                paragraph(_("Judge and experts per system"), H2),
                paragraph(
                    _(
                        "Share of criteria marked as met, on the units with both "
                        "a majority and a verdict."
                    ),
                    SMALL,
                ),
                system_chart(
                    systems,
                    width=PAGE_WIDTH,
                    legend=(_("judge"), _("experts' majority")),
                    note=no_units,
                ),
            ]
        ),
        Spacer(1, 4 * mm),
    ]
    titles = {
        "by_ability": _("By ability"),
        "by_category": _("By category"),
        "by_difficulty": _("By difficulty"),
        "by_scenario": _("By scenario"),
        "by_system": _("By system"),
    }
    for name, rows in report.breakdowns.items():
        story += _breakdown(titles[name], rows, undefined, name)

    raters = [
        [
            _("Rater"),
            _("Units"),
            _("Agreement with the other experts"),
            _("Judge's agreement with this expert"),
        ]
    ]
    for rater, row in report.by_rater.items():
        raters.append(
            [
                rater,
                row["units"],
                pct(row["agreement_with_others"])
                or number_text(None, undefined.get(f"by_rater.{rater}")),
                pct(row["judge_agreement"]) or number_text(None, _("no unit judged by both")),
            ]
        )
    story += [
        CondPageBreak(40 * mm),
        paragraph(_("By rater: the human ceiling beside the judge"), H2),
        pdf_table(raters, [PAGE_WIDTH * s for s in (0.16, 0.12, 0.36, 0.36)]),
    ]
    if undefined:
        story += [
            CondPageBreak(30 * mm),
            Spacer(1, 4 * mm),
            paragraph(_("Undefined values and why"), H2),
        ]
        story += [
            paragraph(f"{name}: {reason_text(reason)}", SMALL) for name, reason in undefined.items()
        ]

    buffer = io.BytesIO()
    document = SimpleDocTemplate(
        buffer,
        pagesize=A4,
        leftMargin=18 * mm,
        rightMargin=18 * mm,
        topMargin=16 * mm,
        bottomMargin=16 * mm,
        title=_("Judge–expert agreement report"),
        author="Concord",
        invariant=True,
    )
    document.build(story, onFirstPage=_footer(ident), onLaterPages=_footer(ident))
    return buffer.getvalue()


def _footer(ident: Identification):
    def draw(canvas, document) -> None:
        canvas.saveState()
        parts = (ident.benchmark, ident.round, ident.run, ident.generated_at, str(document.page))
        text = " · ".join(parts)
        canvas.setFont(CJK if CJK_CHARS.search(text) else LATIN, 7)
        canvas.drawRightString(A4[0] - 18 * mm, 9 * mm, text)
        canvas.restoreState()

    return draw


def agreement_pdf_of(evidence) -> bytes:
    """The PDF of an agreement evidence's report (leaderboard.evidence.selectors.pick), as the
    page shows it."""
    benchmark, round_, run = evidence.benchmark, evidence.round, evidence.run
    ident = Identification(
        benchmark=f"{benchmark.name} ({benchmark.slug})",
        round=round_.name,
        run=f"#{run.pk} · {run.judge_version.label}",
        generated_at=date_format(timezone.localtime(), "Y-m-d H:i T"),
    )
    from leaderboard.report.pdf_corrected import corrected_of

    return agreement_pdf_bytes(
        evidence.report,
        ident=ident,
        systems=system_hit_rates(evidence.units),
        corrected=corrected_of(evidence),
    )
