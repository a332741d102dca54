"""Pure scoring of rubric verdicts: HeartBench's log-normalised ability scores.

Nothing here touches Django or the database, so the numbers can be checked by hand and by
property tests. The caller turns a judge run into `CaseVerdicts` (one per case whose judge
call succeeded and whose verdict list passed `validate_verdicts`) and stores the returned
`SystemScores`. A case whose judge call failed is simply not given: the caller counts it as
failed, and the scorer never invents a score for it.

Ability score of one case
-------------------------
For one case and one ability d, over the case's *scorable* criteria of d (criteria that are
not catastrophic and carry an integer weight): raw = sum of the weights of the hit criteria,
min = sum of the negative weights, max = sum of the positive weights, and

    S_d = 100 * ln(raw - min + 1) / ln(max - min + 1),   S_d = 0 when max - min <= 0.

A penalty-only ability therefore scores 100 unless one of its penalties is hit. An ability
with no scorable criterion in a case has no S_d there: it is absent, not 0. Catastrophic
criteria are never scorable, in either profile and whatever their weight.

Profiles
--------
`heartbench` (the paper's rule): if any catastrophic criterion of the case is hit, whatever
its weight (null, the public -4, or positive), every S_d of the case is 0.

`heartbench-code` (what the released `heartbench/score_answers.py` computes): the
catastrophic rule fires only for a hit catastrophic criterion with a POSITIVE weight, and then
every S_d of the case is 0. The public catastrophic criteria (dimension `其他`) are weighted
null or -4, so on the public set it never fires and a hit on them changes nothing. A
catastrophic criterion with a numeric weight (the public -4) produces no ability score: the
released code builds a range for the `其他` dimension but skips that dimension when it lists
and averages the ability scores, whatever its weight, so the -4 counts toward nothing. A
null-weighted one is ignored as well. (Checked against the released source; a reading in
which `其他` became a sixteenth ability would move every overall score away from the
published ones.)

Deliberate differences from the released code, in both profiles:

- a verdict list of the wrong length is refused by `validate_verdicts`, never padded with 0
  or truncated;
- an ability whose criteria in a case all have a null weight is absent; the released code
  gives it S_d = 0 (an empty range). HEARTBENCH.md counts 2,818 scored + 296 catastrophic
  criteria, so the public set has no such criterion outside `其他`;
- a case with no scorable ability has an undefined case score, not 0.0 (in the released
  code that 0.0 enters no average either);
- an undefined aggregate is a `Value` carrying a reason, never 0 or NaN.

Aggregates
----------
Case score = mean of the case's S_d. Ability score = mean of S_d over the cases that contain
the ability. Overall = unweighted mean of the ability scores (a macro average: a rare ability
weighs as much as a frequent one). Category score = mean of the ability scores of the
abilities in that category. Normal and hard scores are the overall score computed over the
normal cases only and over the hard cases only; the relative decline is
`(normal - hard) / normal` (see `relative_decline` about HeartBench's "37.8%").
"""

from judging.scoring.case import (
    AbilityRange,
    CaseScores,
    ability_ranges,
    catastrophe_fires,
    log_normalised,
    scorable,
    score_case,
)
from judging.scoring.inputs import (
    DIFFICULTIES,
    HARD,
    NORMAL,
    CaseVerdicts,
    Profile,
    ScoredCriterion,
    VerdictCountError,
    VerdictError,
    validate_verdicts,
)
from judging.scoring.system import (
    SystemScores,
    ability_means,
    macro_average,
    relative_decline,
    score_system,
)
from judging.scoring.values import Value, mean

__all__ = [
    "DIFFICULTIES",
    "HARD",
    "NORMAL",
    "AbilityRange",
    "CaseScores",
    "CaseVerdicts",
    "Profile",
    "ScoredCriterion",
    "SystemScores",
    "Value",
    "VerdictCountError",
    "VerdictError",
    "ability_means",
    "ability_ranges",
    "catastrophe_fires",
    "log_normalised",
    "macro_average",
    "mean",
    "relative_decline",
    "scorable",
    "score_case",
    "score_system",
    "validate_verdicts",
]
