"""Agreement statistics for validating an LLM judge against human experts (no Django here).

Every measure returns a ``Stat`` (or an ``Interval``) whose value is a finite float, or None
with a ``reason``; degenerate data (no units, one category, no overlapping raters) never gives
NaN or an exception. Misuse, such as sequences of different lengths, raises ValueError.

The names below are imported from their modules on first use (PEP 562): most of them need
numpy, and a module that only wants one pure helper (as the pages' wording wants
`planning`) should not load numpy with it.
"""

from importlib import import_module

_HOMES = {
    "DEFAULT_RESAMPLES": "leaderboard.stats.bootstrap",
    "DEFAULT_SEED": "leaderboard.stats.bootstrap",
    "cluster_bootstrap_agreement": "leaderboard.stats.bootstrap",
    "BinaryConfusion": "leaderboard.stats.confusion",
    "binary_confusion": "leaderboard.stats.confusion",
    "wilson_interval": "leaderboard.stats.intervals",
    "RaterAgreement": "leaderboard.stats.others",
    "agreement_with_others": "leaderboard.stats.others",
    "cohens_kappa": "leaderboard.stats.pairwise",
    "cohens_kappa_table": "leaderboard.stats.pairwise",
    "gwet_ac1_pair": "leaderboard.stats.pairwise",
    "pabak": "leaderboard.stats.pairwise",
    "percent_agreement": "leaderboard.stats.pairwise",
    "percent_agreement_from_counts": "leaderboard.stats.pairwise",
    "fleiss_kappa": "leaderboard.stats.raters",
    "fleiss_kappa_from_ratings": "leaderboard.stats.raters",
    "gwet_ac1": "leaderboard.stats.raters",
    "gwet_ac1_from_counts": "leaderboard.stats.raters",
    "krippendorff_alpha": "leaderboard.stats.raters",
    "krippendorff_alpha_from_counts": "leaderboard.stats.raters",
    "pairwise_agreement": "leaderboard.stats.raters",
    "pairwise_agreement_from_counts": "leaderboard.stats.raters",
    "BootstrapInterval": "leaderboard.stats.result",
    "Interval": "leaderboard.stats.result",
    "Stat": "leaderboard.stats.result",
    "AGREEMENT_GATE": "leaderboard.stats.threshold",
    "agreement_binomial_log10_p": "leaderboard.stats.significance",
    "agreement_binomial_test": "leaderboard.stats.significance",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
