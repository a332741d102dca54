from leaderboard.models.boards import StoredBoard
from leaderboard.models.exports import ExportJob
from leaderboard.models.gate import GateEvaluation, GatePolicy, LeaderboardSnapshot

__all__ = [
    "ExportJob",
    "GateEvaluation",
    "GatePolicy",
    "LeaderboardSnapshot",
    "StoredBoard",
]
