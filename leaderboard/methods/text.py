"""The methods section written from plain data (no Django): `methods_text(facts, lang, fmt)`.

`facts` is what `leaderboard.methods.facts.methods_facts` gathers: the agreement report's
numbers under the report's keys (`percent_agreement`, `wilson_95`, `humans`, `gate`, ...) and
the round's raters, sample and judge. Each section is one paragraph with a lead-in; the text
ends with the works cited. How values are written and escaped is `writer`'s.
"""

from leaderboard.methods.writer import Writer, coefficient, percent, percent_range

# Works cited, by key, in the order a reference list gives them.
CITATIONS = {
    "wilson1927": "Wilson, E. B. (1927). Probable inference, the law of succession, and "
    "statistical inference. Journal of the American Statistical Association, 22(158), 209–212.",
    "cohen1960": "Cohen, J. (1960). A coefficient of agreement for nominal scales. "
    "Educational and Psychological Measurement, 20(1), 37–46.",
    "fleiss1971": "Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. "
    "Psychological Bulletin, 76(5), 378–382.",
    "krippendorff2019": "Krippendorff, K. (2019). Content analysis: An introduction to its "
    "methodology (4th ed.). SAGE.",
    "gwet2008": "Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the "
    "presence of high agreement. British Journal of Mathematical and Statistical Psychology, "
    "61(1), 29–48.",
    "waudbysmith2024": "Waudby-Smith, I., & Ramdas, A. (2024). Estimating means of bounded "
    "random variables by betting. Journal of the Royal Statistical Society Series B, 86(1), "
    "1–27.",
    "angelopoulos2023": "Angelopoulos, A. N., Duchi, J. C., & Zrnic, T. (2023). PPI++: "
    "Efficient prediction-powered inference. arXiv:2311.01453.",
}


def citation_keys(facts: dict) -> list[str]:
    """The works the text relies on: the sequential test only under its rule, PPI++ only
    when corrected scores appear."""
    keys = ["wilson1927", "cohen1960", "fleiss1971", "krippendorff2019", "gwet2008"]
    if (facts.get("gate") or {}).get("rule_name") == "sequential":
        keys.append("waudbysmith2024")
    if facts.get("corrected"):
        keys.append("angelopoulos2023")
    return keys


def _raters(w: Writer, facts: dict) -> str:
    raters = facts["raters"]
    count = raters["count"]
    key = "raters_one" if count == 1 else "raters"
    text = w.say(key, count=count, round=facts["round"], per_item=raters["raters_per_item"])
    specialities = raters["specialities"]
    if specialities:
        parts = [w.say("speciality_count", name=name, k=k) for name, k in specialities]
        joined = w.words["list_sep"].join(parts)
        text += _space(w) + w.say("specialities", list=w.raw(joined))
        if raters["without_speciality"]:
            text += w.say("specialities_none_for", k=raters["without_speciality"])
    else:
        text += _space(w) + w.say("no_specialities")
    text += _space(w) + w.say("calibrated", k=raters["calibrated"], n=count)
    rate, own = raters["rate_per_item"], raters["own_rates"]
    if rate is not None:
        text += _space(w) + w.say("pay", rate=rate)
        if own:
            text += w.say("pay_own", k=own)
        text += w.say("pay_end")
    elif own:
        text += _space(w) + w.say("pay_own_only", k=own)
    else:
        text += _space(w) + w.say("pay_none")
    return w.paragraph("h_raters", text)


def _space(w: Writer) -> str:
    return " " if w.lang == "en" else ""


def _blinding(w: Writer, facts: dict) -> str:
    shown = facts["sample"]["difficulty_shown"]
    if facts["sample"].get("imported"):
        return w.paragraph("h_blinding", w.say("blinding_imported"))
    text = w.say("blinding") + w.say("difficulty_shown" if shown else "difficulty_hidden")
    current = (facts["gate"].get("rounds") or [{}])[-1]
    if current.get("raters_read_verdicts"):
        text += w.say("verdict_readers")
    return w.paragraph("h_blinding", text)


def _sample(w: Writer, facts: dict) -> str:
    sample = facts["sample"]
    if sample.get("imported"):
        text = w.say(
            "sample_imported",
            items=sample["items"],
            fraction=percent(sample["fraction"]),
            systems=w.raw(w.listing(sample["systems"])),
        )
        return w.paragraph("h_sample", text)
    text = w.say(
        "sample",
        fraction=percent(sample["fraction"]),
        systems=w.raw(w.listing(sample["systems"])),
        seed=sample["seed"],
    )
    if sample["extensions"]:
        text += w.say(
            "extended",
            first=percent(sample["first_fraction"]),
            fraction=percent(sample["fraction"]),
            seed1=sample["extension_seed"],
        )
    text += w.say("sample_size", items=sample["items"])
    if sample["calibration_round"]:
        text += w.say("calibration")
    return w.paragraph("h_sample", text)


def _units(w: Writer, facts: dict) -> str:
    coverage = facts["coverage"]
    text = w.say("units", items=coverage["items"], total=facts["units_total"])
    if (
        coverage["judged"] != coverage["items"]
        or coverage["on_frozen_rubrics"] != coverage["items"]
    ):
        text += w.say(
            "coverage",
            judged=coverage["judged"],
            items=coverage["items"],
            frozen=coverage["on_frozen_rubrics"],
        )
    return w.paragraph("h_units", text)


_EXCLUDED = (
    ("excl_ties", "ties"),
    ("excl_none", "no_consensus"),
    ("excl_failed", "judge_failed"),
    ("excl_missing", "judge_missing"),
    ("excl_other", "judge_other_version"),
)


def _majority(w: Writer, facts: dict) -> str:
    per_item = facts["raters"]["raters_per_item"]
    excluded = facts["excluded"]
    text = w.say("majority", need=per_item // 2 + 1, per_item=per_item)
    parts = [w.say(key, k=excluded[name]) for key, name in _EXCLUDED if excluded.get(name)]
    if facts["short_of_raters"]:
        parts.append(w.say("excl_short", k=facts["short_of_raters"], min=facts["min_raters"]))
    if parts:
        text += w.say("excluded", list=w.raw(w.join(parts)), n=facts["units"])
    else:
        text += w.say("excluded_none", n=facts["units"])
    return w.paragraph("h_majority", text)


def _reliability(w: Writer, facts: dict) -> str:
    humans = facts["humans"]
    if not humans["units"]:
        return w.paragraph("h_reliability", w.say("reliability_none"))
    text = w.say(
        "reliability",
        fleiss=coefficient(humans["fleiss_kappa"]),
        fleiss_units=humans.get("fleiss_units", 0),
        alpha=coefficient(humans["krippendorff_alpha"]),
        ac1=coefficient(humans["gwet_ac1"]),
        units=humans["units"],
        pairwise=percent(humans["pairwise_agreement"]),
    )
    return w.paragraph("h_reliability", text)


def _interval_text(w: Writer, interval) -> str:
    text = percent_range(interval)
    return w.words["no_interval"] if text is None else text


def _agreement(w: Writer, facts: dict) -> str:
    bootstrap = facts["bootstrap"]
    text = w.say(
        "agreement",
        pa=percent(facts["percent_agreement"]),
        n=facts["units"],
        wilson=_interval_text(w, facts["wilson_95"]),
        boot=_interval_text(w, facts["bootstrap_95"]),
        resamples=bootstrap["resamples"],
        bseed=bootstrap["seed"],
        kappa=coefficient(facts["cohen_kappa"]),
    )
    return w.paragraph("h_agreement", text)


def _sequential(w: Writer, gate: dict) -> str:
    sequential = gate.get("sequential")
    if not sequential:
        return ""
    decision = sequential.get("decision") or "continue"
    return w.say(
        "sequential",
        items=sequential["items_in_history"],
        decision=w.words.get(f"decision_{decision}", decision),
        cs=_interval_text(w, sequential.get("cs")),
    )


def _pooled(w: Writer, gate: dict) -> str:
    pooled = gate.get("pooled")
    if not gate.get("looks") or not pooled:
        return w.say("pooled_none")
    return w.say(
        "pooled",
        names=w.raw(w.listing(gate.get("pooled_rounds") or [])),
        point=percent(pooled["point"]),
        units=pooled["units"],
        clusters=pooled["clusters"],
        deff=None if pooled["design_effect"] is None else f"{pooled['design_effect']:.2f}",
        eff=None if pooled["effective_n"] is None else f"{pooled['effective_n']:.1f}",
        interval=_interval_text(w, pooled["interval"]),
        osa=f"{pooled['one_sided_alpha']:g}",
        looks=gate["looks"],
    )


def _refusal(w: Writer, gate: dict) -> str:
    code = gate["refusal"]
    current = (gate.get("rounds") or [{}])[-1]
    key = f"refusal_{code}"
    if key not in w.words:
        return w.say("refusal_other", code=code)
    return w.say(
        key,
        round=current.get("round", ""),
        complete=current.get("complete_items", 0),
        items=current.get("items", 0),
        raters=current.get("raters_per_item", 0),
        min=gate.get("min_raters", 0),
    )


def _gate(w: Writer, facts: dict) -> str:
    gate = facts["gate"]
    rule = gate.get("rule_name") or "point"
    text = w.say(f"rule_{rule}", t=percent(gate["threshold"]), alpha=f"{gate.get('alpha', 0.05):g}")
    rounds = gate.get("rounds") or []
    if rounds:
        text += w.say("history", rounds=w.raw(w.listing([r["round"] for r in rounds])))
    text += _sequential(w, gate) if rule == "sequential" else _pooled(w, gate)
    if gate.get("refusal"):
        text += w.say("refused", why=w.raw(_refusal(w, gate)))
    else:
        text += w.say("passed" if gate["passed"] else "failed")
    return w.paragraph("h_gate", text)


def _score(value: float | None) -> str | None:
    # As the corrected board's page writes scores (two decimals).
    return None if value is None else f"{value:.2f}"


def _corrected_row(w: Writer, row: dict, level: str) -> str:
    if row["corrected"] is None:
        return w.say("corrected_row_none", system=row["system"])
    return w.say(
        "corrected_row",
        system=row["system"],
        judge=_score(row["judge"]),
        corrected=_score(row["corrected"]),
        level=level,
        low=_score(row["ci_low"]),
        high=_score(row["ci_high"]),
    )


def _corrected(w: Writer, facts: dict) -> str:
    corrected = facts["corrected"]
    level = percent(corrected["confidence"]).replace(".0%", "%")
    rows = w.words["corrected_sep"].join(_corrected_row(w, row, level) for row in corrected["rows"])
    text = w.say(
        "corrected",
        profile=corrected["profile"],
        labelled=corrected["labelled_responses"],
        sampled=corrected["sampled_responses"],
        rows=w.raw(rows),
    )
    test = corrected["bias_test"]
    if test["p_value"] is not None:
        text += w.say("bias_test", p=f"{test['p_value']:.3g}", df=test["df"])
    return w.paragraph("h_corrected", text)


def _judge(w: Writer, facts: dict) -> str:
    judge = facts["judge"]
    text = w.say(
        "judge",
        label=judge["label"],
        model=judge["model"],
        prompt=judge["prompt"] or w.raw(w.say("no_prompt")),
        temperature=f"{judge['temperature']:g}",
        seed=w.raw(w.say("no_seed")) if judge["seed"] is None else judge["seed"],
        fingerprint=judge["fingerprint"],
    )
    if judge["source"] == "imported":
        text += w.say("judge_imported")
    if judge["provider_fingerprint"]:
        text += w.say("provider", value=judge["provider_fingerprint"])
    else:
        text += w.say("provider_none")
    return w.paragraph("h_judge", text)


def _software(w: Writer, facts: dict) -> str:
    text = w.say("software", version=facts["concord_version"])
    bundle = facts.get("bundle")
    if bundle:
        text += w.say("bundle", id=bundle["snapshot"], hash=bundle["sha256"])
    else:
        text += w.say("bundle_none")
    return w.paragraph("h_software", text)


def _references(w: Writer, facts: dict) -> str:
    works = [CITATIONS[key] for key in citation_keys(facts)]
    title = w.say("references")
    if w.fmt == "tex":
        items = "\n".join(f"\\item {w.escape(work)}" for work in works)
        return f"\\subsection*{{{title}}}\n\\begin{{enumerate}}\n{items}\n\\end{{enumerate}}"
    items = "\n".join(f"{i}. {w.escape(work)}" for i, work in enumerate(works, 1))
    return f"### {title}\n\n{items}"


def methods_text(facts: dict, *, lang: str = "en", fmt: str = "md") -> str:
    """The methods section of `facts` in `lang` (en, zh-hans) as `fmt` (md, tex). Raises
    MethodsInputError for another language or format."""
    w = Writer(lang, fmt)
    title = w.say("title")
    heading = f"\\section*{{{title}}}" if fmt == "tex" else f"## {title}"
    sections = [_raters, _blinding, _sample, _units, _majority, _reliability, _agreement]
    sections += [_gate] + ([_corrected] if facts.get("corrected") else [])
    sections += ([_judge] if facts.get("judge") else []) + [_software, _references]
    return "\n\n".join([heading, *(section(w, facts) for section in sections)]) + "\n"
