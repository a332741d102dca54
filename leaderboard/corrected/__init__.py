"""Leaderboards corrected by the experts' votes of a review round (prediction-powered
inference, PPI++): the inputs read from the database (`inputs`), the board every reader
shares (`board`), and its wording (`wording`). The math is in `leaderboard.stats.ppi*`."""
