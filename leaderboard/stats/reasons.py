"""Why a statistic is undefined, as a code (the form is `judging.scoring.reasons`'s).

`CODES` lists every code the statistics, the agreement report and the run comparison may
give, with the names of their values; the pages, the PDF and the API put them into words.
"""

from judging.scoring.reasons import parse, reason

NO_UNITS = "no_units"
NO_UNITS_TO_BOUND = "no_units_to_bound"
NO_UNITS_TO_TEST = "no_units_to_test"
P_VALUE_UNDERFLOW = "p_value_underflow"
P_VALUE_ZERO = "p_value_zero"
NO_JUDGED_UNITS = "no_judged_units"
GATE_NO_UNITS = "gate_no_units"
RATER_NO_UNITS = "rater_no_units"
RATER_NO_MAJORITY = "rater_no_majority"
NO_POSITIVE_CONSENSUS = "no_positive_consensus"
NO_NEGATIVE_CONSENSUS = "no_negative_consensus"
SINGLE_RATING = "single_rating"
NO_RATER_PAIRS = "no_rater_pairs"
SINGLE_CLUSTER = "single_cluster"
MCNEMAR_NO_DISCORDANT = "mcnemar_no_discordant"
ONE_CATEGORY_POSSIBLE = "one_category_possible"
ONE_CATEGORY_USED = "one_category_used"
KAPPA_ONE_CATEGORY = "kappa_one_category"
UNEVEN_RATINGS = "uneven_ratings"
NO_VOTES = "no_votes"
NO_PAIRED_UNITS = "no_paired_units"
SEQUENTIAL_THRESHOLD = "sequential_threshold"
# Kept for readings recorded before the sequential test weighted a round drawn with unequal
# chances (leaderboard.stats.sequential_weighted): it refused such a round then, and its
# sentence says why it did.
SEQUENTIAL_UNEQUAL_CHANCES = "sequential_unequal_chances"
# Choosing a judge (leaderboard.selection.choice): its cost, its speed, the choice itself.
NO_PRICES = "no_prices"
NO_USAGE_RECORDED = "no_usage_recorded"
NO_LATENCY_RECORDED = "no_latency_recorded"
NO_JUDGE_COVERS_ROUND = "no_judge_covers_round"
NO_JUDGE_PASSES = "no_judge_passes"
NO_PASSING_COST = "no_passing_cost"
NO_ITEM_TIMES = "no_item_times"
HEALTH_FEW_RATED_UNITS = "health_few_rated_units"
HEALTH_FEW_SYSTEMS = "health_few_systems"
# Can a judge replace an expert (leaderboard.stats.alt_test, leaderboard.stats.meta_f1).
# Corrected scores (leaderboard.stats.ppi, ppi_ranks).
PPI_TOO_FEW_LABELLED = "ppi_too_few_labelled"
PPI_NO_RESPONSES = "ppi_no_responses"
PPI_FEWER_THAN_TWO = "ppi_fewer_than_two_systems"
PPI_BIAS_SINGULAR = "ppi_bias_singular"
PPI_NOT_RANKED = "ppi_not_ranked"
ALT_FEW_ITEMS = "alt_few_items"
ALT_FEW_EXPERTS = "alt_few_experts"
F1_ONE_CLASS = "f1_one_class"
# The drift test (leaderboard.drift): anchors left out because their rubric changed.
ANCHORS_RUBRIC_CHANGED = "anchors_rubric_changed"

CODES: dict[str, tuple[str, ...]] = {
    NO_UNITS: (),
    NO_UNITS_TO_BOUND: (),
    NO_UNITS_TO_TEST: (),
    P_VALUE_UNDERFLOW: (),
    P_VALUE_ZERO: (),
    NO_JUDGED_UNITS: (),
    GATE_NO_UNITS: (),
    RATER_NO_UNITS: (),
    RATER_NO_MAJORITY: (),
    NO_POSITIVE_CONSENSUS: (),
    NO_NEGATIVE_CONSENSUS: (),
    SINGLE_RATING: (),
    NO_RATER_PAIRS: (),
    SINGLE_CLUSTER: (),
    MCNEMAR_NO_DISCORDANT: (),
    ONE_CATEGORY_POSSIBLE: (),
    ONE_CATEGORY_USED: (),
    KAPPA_ONE_CATEGORY: (),
    UNEVEN_RATINGS: ("low", "high"),
    NO_VOTES: (),
    NO_PAIRED_UNITS: (),
    SEQUENTIAL_THRESHOLD: (),
    SEQUENTIAL_UNEQUAL_CHANCES: (),
    NO_PRICES: (),
    NO_USAGE_RECORDED: (),
    NO_LATENCY_RECORDED: (),
    NO_JUDGE_COVERS_ROUND: (),
    NO_JUDGE_PASSES: (),
    NO_PASSING_COST: (),
    NO_ITEM_TIMES: (),
    HEALTH_FEW_RATED_UNITS: ("units", "needed"),
    HEALTH_FEW_SYSTEMS: ("systems", "needed"),
    PPI_TOO_FEW_LABELLED: (),
    PPI_NO_RESPONSES: (),
    PPI_FEWER_THAN_TWO: (),
    PPI_BIAS_SINGULAR: (),
    PPI_NOT_RANKED: (),
    ALT_FEW_ITEMS: ("units", "needed"),
    ALT_FEW_EXPERTS: ("units", "needed"),
    F1_ONE_CLASS: (),
    ANCHORS_RUBRIC_CHANGED: ("anchors",),
}

__all__ = ["CODES", "parse", "reason"]
