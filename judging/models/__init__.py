from judging.models.config import JudgeConfig, PromptTemplate
from judging.models.runs import JudgeAttempt, JudgeRun, JudgeTask, Verdict

__all__ = ["JudgeAttempt", "JudgeConfig", "JudgeRun", "JudgeTask", "PromptTemplate", "Verdict"]
