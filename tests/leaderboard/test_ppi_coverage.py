"""Simulated rounds (bench/ppi_coverage.py): the corrected intervals cover the experts' true
scores, the equal-bias test keeps its level, and a judge at 85% agreement narrows the
interval by at least 30%."""

from bench.ppi_coverage import Design, run


def test_corrected_intervals_cover_and_are_narrower_than_the_experts_alone():
    figures = run(rounds=1000, seed=0, design=Design())
    assert figures.coverage >= 0.94
    assert figures.bias_coverage >= 0.94
    assert figures.width_ratio <= 0.70
    assert figures.effective_n > Design().labelled


def test_equal_bias_test_keeps_its_level_when_every_system_has_the_same_bias():
    figures = run(rounds=1000, seed=2, design=Design(level_spread=0.0))
    # 5% nominal; 1,000 rounds put a 99% band of about 3.2 to 6.8% around a true 5%.
    assert figures.bias_test_rejections <= 0.075


def test_equal_bias_test_finds_a_judge_lenient_with_one_system():
    figures = run(
        rounds=100, seed=1, design=Design(level_spread=0.0, lenient_system=0, lenience=0.25)
    )
    assert figures.bias_test_rejections >= 0.9
