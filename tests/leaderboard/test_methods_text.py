"""The methods section's text from plain data (no database): both languages and both formats
state the same numbers as the pages write them, escape what each format needs, cite the
methods used, and follow the Chinese glossary."""

import copy
import re

import pytest

from leaderboard.methods import phrases_en, phrases_zh
from leaderboard.methods.text import CITATIONS, citation_keys, methods_text
from leaderboard.methods.writer import (
    MethodsInputError,
    coefficient,
    escape_tex,
    percent,
    percent_range,
)
from leaderboard.report import reading
from tests.i18n.test_glossary import glossary_rows

FACTS = {
    "round": "Pilot_1",
    "coverage": {"items": 40, "judged": 40, "on_frozen_rubrics": 40},
    "units": 301,
    "units_total": 320,
    "excluded": {
        "ties": 0,
        "no_consensus": 12,
        "judge_failed": 3,
        "judge_missing": 0,
        "judge_other_version": 0,
    },
    "min_raters": 3,
    "short_of_raters": 4,
    "percent_agreement": 0.8172757475083057,
    "wilson_95": [0.7697, 0.8568],
    "bootstrap_95": [0.7601, 0.8655],
    "bootstrap": {"resamples": 1000, "seed": 20251, "clusters": "dialogue (case)"},
    "cohen_kappa": 0.6123,
    "humans": {
        "units": 308,
        "fleiss_kappa": 0.5432,
        "fleiss_units": 300,
        "krippendorff_alpha": 0.5511,
        "gwet_ac1": 0.6702,
        "pairwise_agreement": 0.8021,
    },
    "gate": {
        "threshold": 0.75,
        "passed": True,
        "rule_name": "point",
        "refusal": None,
        "min_raters": 3,
        "alpha": 0.05,
        "looks": 1,
        "pooled_rounds": ["Pilot_1"],
        "pooled": {
            "point": 0.8172757475083057,
            "units": 301,
            "clusters": 40,
            "design_effect": 1.734,
            "effective_n": 173.58,
            "interval": [0.752, 0.869],
            "one_sided_alpha": 0.025,
            "p_value": 0.01,
        },
        "rounds": [{"round": "Pilot_1", "complete_items": 40, "items": 40, "raters_per_item": 3}],
    },
    "raters": {
        "count": 5,
        "raters_per_item": 3,
        "specialities": [["职场心理", 3], ["亲密关系", 1]],
        "without_speciality": 1,
        "calibrated": 4,
        "rate_per_item": "12.50",
        "own_rates": 1,
    },
    "sample": {
        "imported": False,
        "items": 40,
        "fraction": 0.3,
        "seed": 20251,
        "systems": ["Model *Alpha*", "Human counsellor"],
        "first_fraction": 0.3,
        "extensions": [],
        "extension_seed": None,
        "calibration_round": False,
        "difficulty_shown": False,
    },
    "judge": {
        "label": "gpt_judge v2",
        "source": "llm",
        "model": "gpt-4o-2024-08-06",
        "prompt": "heartbench-zh v3",
        "temperature": 0.0,
        "seed": 7,
        "fingerprint": "ab" * 32,
        "provider_fingerprint": "fp_50cad350e4",
    },
    "concord_version": "0.3.0",
    "bundle": {"snapshot": 4, "sha256": "cd" * 32},
    "corrected": None,
}


def facts(**changes) -> dict:
    data = copy.deepcopy(FACTS)
    data.update(changes)
    return data


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
@pytest.mark.parametrize("fmt", ["md", "tex"])
def test_every_number_is_written_as_the_pages_write_it(lang, fmt):
    text = methods_text(FACTS, lang=lang, fmt=fmt)
    pct = (lambda s: s.replace("%", r"\%")) if fmt == "tex" else (lambda s: s)
    expected = [
        pct(reading.percent(FACTS["percent_agreement"])),  # 81.7%
        pct("77.0–85.7%"),  # the Wilson interval as the page's pct_range writes it
        pct("76.0–86.6%"),  # the cluster bootstrap interval
        reading.coefficient(FACTS["cohen_kappa"]),
        "0.54",  # Fleiss
        "0.55",  # Krippendorff
        "0.67",  # Gwet AC1
        pct("80.2%"),  # pairwise
        pct("75.0%"),  # the threshold
        pct("75.2–86.9%"),  # the pooled cluster-robust interval
        "1.73",  # design effect
        "173.6",  # effective n
        "301",
        "1000",
        "20251",
        "12.50",
        "gpt-4o-2024-08-06",
        "fp\\_50cad350e4",  # escaped alike in Markdown and LaTeX
        "0.3.0",
        "cd" * 32,
        "ab" * 32,
    ]
    for value in expected:
        assert value in text, (value, lang, fmt)
    for work in ("Wilson, E. B. (1927)", "Cohen, J. (1960)", "Fleiss, J. L. (1971)"):
        assert work in text
    assert "Krippendorff, K." in text and "Gwet, K. L. (2008)" in text
    # The references close the text.
    assert text.rstrip().endswith("\\end{enumerate}" if fmt == "tex" else "29–48.")
    assert ("Waudby-Smith" in text) is False and "PPI++" not in text


def test_formatting_is_the_pages_own():
    for value in (0.0, 0.75, 0.8172757475083057, 0.99951, 1.0, None):
        assert (percent(value) or "—") == reading.percent(value)
        assert (coefficient(value) or "—") == reading.coefficient(value)
    assert percent_range([0.409275430310169, 0.928520787247891]) == "40.9–92.9%"
    assert percent_range(None) is None


def test_both_languages_say_each_part():
    english = methods_text(FACTS, lang="en", fmt="md")
    chinese = methods_text(FACTS, lang="zh-hans", fmt="md")
    for head in (
        "Raters.",
        "Blinding.",
        "Sample.",
        "Units.",
        "Reference standard.",
        "Inter-rater reliability.",
        "Judge–majority agreement.",
        "Gate.",
        "Judge.",
        "Software.",
    ):
        assert f"**{head}**" in english
    for head in ("评分者。", "盲法。", "样本。", "分析单元。", "参照标准。", "评分者间信度。"):
        assert f"**{head}**" in chinese
    assert "## 方法" in chinese and "### 参考文献" in chinese
    assert "stratified by case difficulty, primary scenario and system" in english
    assert "按题目难度、主要场景和系统分层" in chinese
    assert (
        "职场心理 (3), 亲密关系 (1)" in english and "职场心理（3 名）、亲密关系（1 名）" in chinese
    )
    assert "a piece rate of 12.50 per item rated, 1 of them at a rate of their own" in english
    assert "never sees" not in english and "without seeing which system wrote it" in english
    assert "Outcome: the gate passed." in english and "结果：通过门槛。" in chinese
    assert "The judge was gpt\\_judge v2" in english  # Markdown's emphasis escaped
    assert "Model \\*Alpha\\* and Human counsellor" in english
    assert "Model \\*Alpha\\*、Human counsellor" not in chinese
    assert "Model \\*Alpha\\* 和 Human counsellor" in chinese


def test_the_chinese_follows_the_glossary():
    chinese = methods_text(FACTS, lang="zh-hans", fmt="md")
    words = " ".join(phrases_zh.PHRASES.values())
    for row in glossary_rows():
        for never in row["never"]:
            assert never not in words, (never, row["english"])
    assert "专家标注轮次 Pilot\\_1" in chinese
    assert "“符合”或“不符合”" in chinese and "评审模型" in chinese and "平票" in chinese


def test_the_phrasebooks_have_the_same_phrases_and_fields():
    field = re.compile(r"\{(\w+)\}")
    assert set(phrases_en.PHRASES) == set(phrases_zh.PHRASES)
    for key, english in phrases_en.PHRASES.items():
        assert set(field.findall(english)) == set(field.findall(phrases_zh.PHRASES[key])), key


def test_latex_escapes_its_special_characters():
    tricky = facts(round="R_1 & 50% {#x} $~^\\")
    text = methods_text(tricky, lang="en", fmt="tex")
    assert r"R\_1 \& 50\% \{\#x\} \$\textasciitilde{}\textasciicircum{}\textbackslash{}" in text
    assert text.startswith("\\section*{Methods}")
    assert "\\paragraph{Raters.}" in text and r"Fleiss' $\kappa$" in text
    # No % that LaTeX would read as a comment, no bare & or # or _.
    body = text.replace("\\%", "").replace("\\&", "").replace("\\#", "").replace("\\_", "")
    assert not re.search(r"[%&#_]", body)
    assert text.count("{") == text.count("}")
    assert escape_tex("a_b") == r"a\_b"
    chinese = methods_text(tricky, lang="zh-hans", fmt="tex")
    assert "\\section*{方法}" in chinese and r"R\_1 \& 50\%" in chinese


def test_citations_follow_the_methods_used():
    assert citation_keys(FACTS) == [
        "wilson1927",
        "cohen1960",
        "fleiss1971",
        "krippendorff2019",
        "gwet2008",
    ]
    sequential = facts(
        gate={
            **FACTS["gate"],
            "rule_name": "sequential",
            "passed": False,
            "sequential": {"items_in_history": 25, "decision": "continue", "cs": [0.61, 0.93]},
        }
    )
    text = methods_text(sequential, lang="en", fmt="md")
    assert "Waudby-Smith, I., & Ramdas, A. (2024)" in text
    assert "an anytime-valid sequential test (a betting e-process, α = 0.05)" in text
    assert "read 25 settled items" in text and "no decision yet" in text and "61.0–93.0%" in text
    assert "Outcome: the gate did not pass." in text
    corrected = methods_text(facts(corrected=CORRECTED), lang="en", fmt="md")
    assert CITATIONS["angelopoulos2023"] in corrected


CORRECTED = {
    "profile": "heartbench",
    "round": "Pilot_1",
    "method": "PPI++ mean per response",
    "confidence": 0.95,
    "sampled_responses": 40,
    "labelled_responses": 37,
    "rows": [
        {
            "system": "Model A",
            "judge": 71.234,
            "corrected": 68.5,
            "ci_low": 63.004,
            "ci_high": 73.996,
            "bias": 2.734,
            "bias_ci_low": 0.1,
            "bias_ci_high": 5.3,
            "labelled": 20,
            "effective_n": 31.2,
            "reason": None,
        },
        {
            "system": "Model B",
            "judge": 50.0,
            "corrected": None,
            "ci_low": None,
            "ci_high": None,
            "bias": None,
            "bias_ci_low": None,
            "bias_ci_high": None,
            "labelled": 4,
            "effective_n": None,
            "reason": "too_few_labelled",
        },
    ],
    "bias_test": {"p_value": 0.04321, "df": 1},
}


def test_corrected_scores_are_stated_when_present():
    english = methods_text(facts(corrected=CORRECTED), lang="en", fmt="md")
    assert "**Corrected scores.** Scores corrected by the experts' votes" in english
    assert "37 of the 40 sampled responses" in english
    assert "Model A, judge 71.23, corrected 68.50 (95% CI 63.00–74.00); Model B, no corrected" in (
        english
    )
    assert "p = 0.0432 (df 1)" in english and "Angelopoulos, A. N." in english
    chinese = methods_text(facts(corrected=CORRECTED), lang="zh-hans", fmt="tex")
    assert r"Model A：评审模型 71.23，校正后 68.50（95\% 置信区间 63.00–74.00）" in chinese
    assert "\\paragraph{校正分数。}" in chinese
    assert "Corrected scores" not in methods_text(FACTS, lang="en", fmt="md")


def test_an_extended_round_says_how_it_grew():
    grown = facts(
        sample={
            **FACTS["sample"],
            "fraction": 0.4,
            "first_fraction": 0.3,
            "extensions": [{"from": 0.3, "to": 0.4, "added": 12}],
            "extension_seed": 20252,
        }
    )
    english = methods_text(grown, lang="en", fmt="md")
    assert "The round drew 40.0% of the responses" in english
    assert "opened at 30.0% and extended to 40.0%" in english and "with seed 20252" in english
    chinese = methods_text(grown, lang="zh-hans", fmt="md")
    assert "本轮开放时的抽样比例为 30.0%，之后扩展至 40.0%" in chinese


def test_refusals_unpublished_boards_and_missing_settings_are_said():
    refused = facts(
        gate={
            **FACTS["gate"],
            "passed": False,
            "refusal": "round_incomplete",
            "rounds": [
                {"round": "Pilot_1", "complete_items": 31, "items": 40, "raters_per_item": 3}
            ],
        },
        bundle=None,
        judge={**FACTS["judge"], "seed": None, "prompt": None, "provider_fingerprint": None},
    )
    english = methods_text(refused, lang="en", fmt="md")
    assert "the gate could not decide, because the round Pilot\\_1 is not complete (31 of 40" in (
        english
    )
    assert "The leaderboard is not published." in english
    assert "prompt not recorded" in english and "seed none" in english
    assert "No provider fingerprint was recorded." in english
    chinese = methods_text(refused, lang="zh-hans", fmt="md")
    assert "门槛无法判定" in chinese and "该排行榜尚未发布。" in chinese


def test_undefined_statistics_are_called_undefined():
    empty = facts(cohen_kappa=None, wilson_95=None, bootstrap_95=None, percent_agreement=None)
    english = methods_text(empty, lang="en", fmt="md")
    assert "agreed with the expert majority on undefined of 301 units" in english
    assert "Wilson 95% CI no interval" in english and "κ between the judge" in english
    assert "None" not in english


def test_another_language_or_format_is_refused_by_name():
    with pytest.raises(MethodsInputError, match="language 'fr'"):
        methods_text(FACTS, lang="fr", fmt="md")
    with pytest.raises(MethodsInputError, match="format 'docx'"):
        methods_text(FACTS, lang="en", fmt="docx")


def test_blinding_says_when_a_rater_could_read_the_verdicts():
    rounds = [{**FACTS["gate"]["rounds"][0], "raters_read_verdicts": True}]
    readers = facts(gate={**FACTS["gate"], "rounds": rounds, "refusal": "rater_reads_verdicts"})
    english = methods_text(readers, lang="en", fmt="md")
    assert "at least one rater of this round was allowed to read the judge's verdicts" in english
    assert "because a rater in the round Pilot\\_1 could read the judge's verdicts." in english
    assert "allowed to read" not in methods_text(FACTS, lang="en", fmt="md")
    assert "有权在 Concord 的其他页面查看评审模型的判定" in methods_text(readers, lang="zh-hans")


def test_only_what_was_left_out_is_listed():
    english = methods_text(FACTS, lang="en", fmt="md")
    assert (
        "Left out of the judge's agreement: 12 units without votes, 3 whose judge call failed "
        "and 4 rated by fewer than 3 experts; 301 units remain."
    ) in english
    assert "tied units" not in english
    chinese = methods_text(FACTS, lang="zh-hans", fmt="md")
    assert (
        "计算评审模型一致性时排除了：12 个无人评分的单元、3 个评审模型调用失败的单元、"
        "4 个评分专家少于 3 名的单元；余下 301 个单元。"
    ) in chinese
    nothing = facts(excluded=dict.fromkeys(FACTS["excluded"], 0), short_of_raters=0)
    assert "No unit was left out of the judge's agreement: 301 units." in methods_text(nothing)


def test_an_imported_round_does_not_claim_concords_sampling_or_blinding():
    imported = facts(sample={**FACTS["sample"], "imported": True})
    english = methods_text(imported, lang="en", fmt="md")
    assert "were chosen outside Concord, which holds no record of how they were drawn" in english
    assert "holds no record of how the raters were blinded" in english
    assert "stratified" not in english and "without seeing which system" not in english
    chinese = methods_text(imported, lang="zh-hans", fmt="md")
    assert "在 Concord 之外选取" in chinese and "没有评分者盲法的记录" in chinese
