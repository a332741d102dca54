"""Agreement statistics for validating an LLM judge against human experts (no Django here).

Every measure returns a ``Stat`` (or an ``Interval``) whose value is a finite float, or None
with a ``reason``; degenerate data (no units, one category, no overlapping raters) never gives
NaN or an exception. Misuse, such as sequences of different lengths, raises ValueError.
"""

from leaderboard.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    cluster_bootstrap_agreement,
)
from leaderboard.stats.confusion import BinaryConfusion, binary_confusion
from leaderboard.stats.intervals import wilson_interval
from leaderboard.stats.others import RaterAgreement, agreement_with_others
from leaderboard.stats.pairwise import (
    cohens_kappa,
    cohens_kappa_table,
    gwet_ac1_pair,
    pabak,
    percent_agreement,
    percent_agreement_from_counts,
)
from leaderboard.stats.raters import (
    fleiss_kappa,
    fleiss_kappa_from_ratings,
    gwet_ac1,
    gwet_ac1_from_counts,
    krippendorff_alpha,
    krippendorff_alpha_from_counts,
    pairwise_agreement,
    pairwise_agreement_from_counts,
)
from leaderboard.stats.result import BootstrapInterval, Interval, Stat
from leaderboard.stats.significance import (
    AGREEMENT_GATE,
    agreement_binomial_log10_p,
    agreement_binomial_test,
)

__all__ = [
    "AGREEMENT_GATE",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "BinaryConfusion",
    "BootstrapInterval",
    "Interval",
    "RaterAgreement",
    "Stat",
    "agreement_binomial_log10_p",
    "agreement_binomial_test",
    "agreement_with_others",
    "binary_confusion",
    "cluster_bootstrap_agreement",
    "cohens_kappa",
    "cohens_kappa_table",
    "fleiss_kappa",
    "fleiss_kappa_from_ratings",
    "gwet_ac1",
    "gwet_ac1_from_counts",
    "gwet_ac1_pair",
    "krippendorff_alpha",
    "krippendorff_alpha_from_counts",
    "pabak",
    "pairwise_agreement",
    "pairwise_agreement_from_counts",
    "percent_agreement",
    "percent_agreement_from_counts",
    "wilson_interval",
]
