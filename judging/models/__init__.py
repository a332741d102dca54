from judging.models.config import JudgeConfig, PromptTemplate
from judging.models.runs import JudgeAttempt, JudgeLane, JudgeRun, JudgeTask, Verdict
from judging.models.scores import StoredLeaderboard

__all__ = [
    "JudgeAttempt",
    "JudgeConfig",
    "JudgeLane",
    "JudgeRun",
    "JudgeTask",
    "PromptTemplate",
    "StoredLeaderboard",
    "Verdict",
]
