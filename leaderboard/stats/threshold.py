"""The gate's one default threshold. Its own module: models and settings read it without
loading numpy."""

#: HeartBench's methodology trusts a judge that agrees with the human consensus 75% of the time.
AGREEMENT_GATE = 0.75
