from judging.models.config import JudgeConfig, PromptTemplate
from judging.models.runs import JudgeAttempt, JudgeLane, JudgeRun, JudgeTask, Verdict

__all__ = [
    "JudgeAttempt",
    "JudgeConfig",
    "JudgeLane",
    "JudgeRun",
    "JudgeTask",
    "PromptTemplate",
    "Verdict",
]
