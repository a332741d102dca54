"""The drift bench, run small: it prints a false-flag rate within alpha and the runs a
drift takes to be flagged."""

import re

from bench.drift_detection import main


def test_the_bench_reports_the_false_flag_rate_within_alpha_and_the_runs_to_detection(capsys):
    assert main(["--simulations", "400", "--drift", "-0.3", "--runs", "10"]) == 0
    out = capsys.readouterr().out
    rate = float(re.search(r"no drift .* in ([0-9.]+) of 400", out).group(1))
    assert rate <= 0.05 + 3 * (0.05 * 0.95 / 400) ** 0.5
    assert "within)" in out
    assert re.search(r"runs to detection median \d+", out)
    assert re.search(r"planned later runs for power 90%: \d+", out)
