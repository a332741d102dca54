from leaderboard.models.boards import StoredBoard
from leaderboard.models.drift import AnchorSet, AnchorUnit
from leaderboard.models.exports import ExportJob
from leaderboard.models.gate import GateEvaluation, GatePolicy, LeaderboardSnapshot

__all__ = [
    "AnchorSet",
    "AnchorUnit",
    "ExportJob",
    "GateEvaluation",
    "GatePolicy",
    "LeaderboardSnapshot",
    "StoredBoard",
]
