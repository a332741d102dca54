"""Why the gate cannot decide on a round, as codes (leaderboard.gate.history gives them;
leaderboard.gate.wording words them). No imports: pages and checks read them cheaply."""

# Why the gate cannot decide on the evidence (codes; leaderboard.report.wording_reasons words them).
ROUND_INCOMPLETE = "round_incomplete"
TOO_FEW_RATERS = "too_few_raters"
RATER_READS_VERDICTS = "rater_reads_verdicts"
# The person recording an evaluation, or publishing, rated in the round (checked where the
# person is known: leaderboard.gate.services.evaluation).
PUBLISHER_RATED = "publisher_rated"
# A judge version derived from a round's calibration part, evaluated on no held-out item of
# it (leaderboard.selection.calibration_guard).
CALIBRATION_LEAK = "calibration_leak"
# The sequential rule on evidence holding a round drawn with unequal chances whose tallies
# were recorded without the items' weights: it cannot weight the round's items.
UNEQUAL_CHANCES = "unequal_chances"
REFUSALS = (
    ROUND_INCOMPLETE,
    TOO_FEW_RATERS,
    RATER_READS_VERDICTS,
    PUBLISHER_RATED,
    UNEQUAL_CHANCES,
)
