"""The methods section of a validation: raters, blinding, sample, units, the majority rule,
reliability, the judge's agreement with its intervals, the gate, the judge's exact version,
Concord's version and the bundle, written from the agreement report's own evidence.

- `facts` (Django): `methods_facts(evidence)` gathers plain data from the evidence that
  `leaderboard.evidence.selectors.pick.agreement_evidence` picked, the report's numbers under the
  report's own keys.
- `text` (pure): `methods_text(facts, lang=..., fmt=...)` writes it in English or Simplified
  Chinese, as Markdown or LaTeX; `phrases_en` and `phrases_zh` hold the wording.
"""
