"""The error-rate simulation of the gate's rules, run small: the sequential rule's false
passes stay within alpha however the round ends and however often a judge is re-run, and
the simulation reproduces the early-close attack on fixed rules that accepted it."""

import pytest

from bench.gate_error_rates import ICCS, KEYS, error_rates, main, majority_right

ALPHA = 0.05


def test_the_sequential_rule_false_passes_at_most_alpha_everywhere():
    rows = error_rates(simulations=300, threshold=0.75, alpha=ALPHA, seed=7)
    assert {(row["icc"], row["rule"]) for row in rows} == {
        (icc, rule) for icc in ICCS for rule in ("point", "lower_bound", "sequential")
    }
    sequential = [row for row in rows if row["rule"] == "sequential"]
    for row in sequential:
        for key in KEYS:
            assert row[key] <= ALPHA, (row["icc"], key, row[key])
        # A clearly better judge is passed, well before the round's 266 items.
        share, median, _p90 = row["power"][0.90]
        assert share >= 0.95 and median < 100
    # Were an early-closed round decided by the point rule on what had settled, a judge at
    # the threshold would pass most of the time: the attack the refusal stops.
    point = [row for row in rows if row["rule"] == "point"]
    assert all(row["early_close_accepted"] > 0.5 for row in point)
    assert all(row["early_close"] <= ALPHA for row in point)


def test_three_raters_majority_and_the_printed_table(capsys):
    # Wrong at 5%, 10% and 15%: the majority is right unless two are wrong.
    assert majority_right((0.05, 0.10, 0.15)) == 1 - (
        0.05 * 0.10 * 0.85 + 0.05 * 0.90 * 0.15 + 0.95 * 0.10 * 0.15 + 0.05 * 0.10 * 0.15
    )
    main(["--simulations", "40"])
    out = capsys.readouterr().out
    assert "| ICC | rule | false pass, one round |" in out
    assert out.count("`sequential`") == len(ICCS)


def test_the_lower_bound_is_wilson_at_the_effective_n():
    import numpy as np
    from statsmodels.stats.proportion import proportion_confint

    from bench.gate_error_rates import lower_bound

    # Items that agree alike within (all or none of their units): a design effect above 1.
    agree = np.array([[10.0, 10.0, 0.0, 10.0, 7.0, 10.0, 10.0, 3.0]])
    units = np.full_like(agree, 10.0)
    n, k = units.sum(), agree.shape[1]
    point = agree.sum() / n
    clustered = k / (k - 1) * ((agree - point * units) ** 2).sum() / n**2
    effective = n / (clustered / (point * (1 - point) / n))
    low, _high = proportion_confint(point * effective, effective, alpha=0.05, method="wilson")
    assert lower_bound(agree, units, look=1, alpha=0.05)[0] == pytest.approx(low)
    # The second look spends half the first's level: a lower bound further down.
    low2, _ = proportion_confint(point * effective, effective, alpha=0.025, method="wilson")
    assert lower_bound(agree, units, look=2, alpha=0.05)[0] == pytest.approx(low2)
