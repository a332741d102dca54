"""The methods section's wording in English. `{name}` fields are filled with formatted,
escaped values by `leaderboard.methods.text`; the rest is escaped for LaTeX there too."""

PHRASES = {
    "title": "Methods",
    "references": "References",
    "undefined": "undefined",
    "no_interval": "no interval",
    "and": " and ",
    "list_sep": ", ",
    # Raters
    "h_raters": "Raters.",
    "raters_one": "One expert rated the sampled responses in the review round {round}, "
    "each item by {per_item}.",
    "raters": "{count} experts rated the sampled responses in the review round {round}, "
    "each item by {per_item} of them independently.",
    "specialities": "Their specialities, as recorded in their expert profiles: {list}.",
    "specialities_none_for": " No speciality is recorded for {k} of them.",
    "no_specialities": "No specialities are recorded in their expert profiles.",
    "speciality_count": "{name} ({k})",
    "calibrated": "{k} of the {n} had passed Concord's calibration.",
    "pay": "Raters were paid a piece rate of {rate} per item rated",
    "pay_own": ", {k} of them at a rate of their own",
    "pay_end": ".",
    "pay_none": "The round records no piece rate, so Concord holds no record of how the "
    "raters were paid.",
    "pay_own_only": "The round records no piece rate; {k} of the raters had a rate of their "
    "own per item rated.",
    # Blinding
    "h_blinding": "Blinding.",
    "blinding": "Experts rated each response without seeing which system wrote it, the other "
    "experts' votes or the judge's verdicts. Items were handed out in an order shuffled with "
    "the round's seed, so that no expert met one system's responses in a block",
    "difficulty_hidden": ", and the cases' difficulty was not shown.",
    "difficulty_shown": "; the cases' difficulty was shown to the raters.",
    "verdict_readers": " However, at least one rater of this round was allowed to read the "
    "judge's verdicts elsewhere in Concord.",
    "blinding_imported": "The votes of this round were collected outside Concord, which holds "
    "no record of how the raters were blinded.",
    # Sample
    "h_sample": "Sample.",
    "sample": "The round drew {fraction} of the responses of {systems} (responses whose "
    "generation failed and cases without a rubric are not eligible), stratified by case "
    "difficulty, primary scenario and system: every stratum gave the same share, the "
    "remaining places going to the strata with the largest remainders, and the responses "
    "within a stratum were chosen by a random permutation seeded with {seed}.",
    "extended": " The round was opened at {first} and extended to {fraction}; the responses "
    "an extension added were drawn by the same rule from those not yet sampled, with seed "
    "{seed1}.",
    "sample_imported": "The votes of this round were imported from a file: its {items} "
    "responses ({fraction} of the responses of {systems}) were chosen outside Concord, which "
    "holds no record of how they were drawn.",
    "sample_size": " The sample holds {items} responses.",
    "calibration": " This was a calibration round.",
    # Units
    "h_units": "Units.",
    "units": "The unit of analysis is one response × one criterion of the rubric version "
    "frozen when the round opened: the {items} responses gave {total} units. Each expert "
    "judged every criterion of an item as met or not met.",
    "coverage": " The judge's verdicts covered {judged} of the {items} responses, {frozen} "
    "of them on the rubric versions the round froze.",
    # Majority
    "h_majority": "Reference standard.",
    "majority": "The reference label of a unit is the majority of the experts' current votes "
    "({need} of {per_item} with {per_item} raters). An even split is a tie and is never "
    "broken by guessing.",
    "excluded": " Left out of the judge's agreement: {list}; {n} units remain.",
    "excluded_none": " No unit was left out of the judge's agreement: {n} units.",
    "excl_ties": "{k} tied units",
    "excl_none": "{k} units without votes",
    "excl_failed": "{k} whose judge call failed",
    "excl_missing": "{k} the judge did not judge",
    "excl_other": "{k} judged on another rubric version",
    "excl_short": "{k} rated by fewer than {min} experts",
    # Reliability
    "h_reliability": "Inter-rater reliability.",
    "reliability": "Among the experts, Fleiss' κ was {fleiss} (on the {fleiss_units} units "
    "with the usual number of ratings), Krippendorff's α {alpha} and Gwet's AC1 {ac1} (on "
    "the {units} units with votes); on average, {pairwise} of the pairs of experts rating a "
    "unit agreed.",
    "reliability_none": "No expert votes were recorded, so inter-rater reliability is undefined.",
    # Agreement
    "h_agreement": "Judge–majority agreement.",
    "agreement": "The judge agreed with the expert majority on {pa} of {n} units (Wilson 95% "
    "CI {wilson}; cluster bootstrap 95% CI {boot}, {resamples} resamples of whole dialogues, "
    "seed {bseed}). Cohen's κ between the judge and the majority was {kappa}.",
    # Gate
    "h_gate": "Gate.",
    "rule_point": "The benchmark's gate passes a judge version when its agreement with the "
    "expert majority (the point estimate) is at least {t}.",
    "rule_lower_bound": "The benchmark's gate passes a judge version when the lower bound of "
    "the 95% interval of its agreement with the expert majority is at least {t}.",
    "rule_sequential": "The benchmark's gate passes a judge version when an anytime-valid "
    "sequential test (a betting e-process, α = {alpha}) concludes that its agreement with the "
    "expert majority is at least {t}.",
    "history": " Every round this judge version was judged on stays in its evidence: {rounds}.",
    "pooled": " Pooling the complete rounds ({names}), agreement was {point} on {units} units "
    "in {clusters} responses; allowing for criteria correlated within a response (design "
    "effect {deff}, effective n {eff}), the cluster-robust Wilson interval was {interval}, "
    "at a one-sided α of {osa} for look {looks} (α is spent over the looks).",
    "pooled_none": " No complete round of this judge version could be pooled.",
    "sequential": " The sequential test read {items} settled items in hand-out order across "
    "these rounds; its decision: {decision} (confidence sequence {cs}).",
    "decision_pass": "pass",
    "decision_fail": "fail",
    "decision_continue": "no decision yet",
    "passed": " Outcome: the gate passed.",
    "failed": " Outcome: the gate did not pass.",
    "refused": " Outcome: the gate could not decide, because {why}",
    "refusal_round_incomplete": "the round {round} is not complete ({complete} of {items} "
    "items have all their raters), and the fixed rules decide only on complete rounds.",
    "refusal_too_few_raters": "the round {round} has {raters} raters per item, fewer than the "
    "policy's minimum of {min}.",
    "refusal_rater_reads_verdicts": "a rater in the round {round} could read the judge's verdicts.",
    "refusal_publisher_rated": "the person recording the evaluation rated in the round.",
    "refusal_other": "of the refusal {code}.",
    # Corrected scores
    "h_corrected": "Corrected scores.",
    "corrected": "Scores corrected by the experts' votes with prediction-powered inference "
    "(PPI++, {profile} scoring; {labelled} of the {sampled} sampled responses had a majority "
    "on every criterion): {rows}.",
    "corrected_row": "{system}, judge {judge}, corrected {corrected} ({level} CI {low}–{high})",
    "corrected_row_none": "{system}, no corrected score",
    "corrected_sep": "; ",
    "bias_test": " A test of equal judge bias across systems gave p = {p} (df {df}).",
    # Judge
    "h_judge": "Judge.",
    "judge": "The judge was {label}: model {model}, prompt {prompt}, temperature {temperature}, "
    "seed {seed}; the fingerprint (SHA-256) of these settings is {fingerprint}.",
    "judge_imported": " Its verdicts were imported from a file, not requested by Concord.",
    "no_prompt": "not recorded",
    "no_seed": "none",
    "provider": " The provider's fingerprint was {value}.",
    "provider_none": " No provider fingerprint was recorded.",
    # Software and bundle
    "h_software": "Software.",
    "software": "The statistics were computed with Concord {version}.",
    "bundle": " The published leaderboard #{id} is archived as an evidence bundle with "
    "SHA-256 {hash}.",
    "bundle_none": " The leaderboard is not published.",
}
