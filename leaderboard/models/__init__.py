from leaderboard.models.gate import GateEvaluation, GatePolicy, LeaderboardSnapshot

__all__ = ["GateEvaluation", "GatePolicy", "LeaderboardSnapshot"]
