from judging.models.anchors import AnchorSet, AnchorUnit
from judging.models.config import JudgeConfig, PromptTemplate
from judging.models.probes import OutputProbe
from judging.models.runs import (
    JudgeAttempt,
    JudgeLane,
    JudgeRun,
    JudgeTask,
    MemberVerdict,
    Verdict,
)
from judging.models.versions import JudgeVersion

__all__ = [
    "AnchorSet",
    "AnchorUnit",
    "JudgeAttempt",
    "JudgeConfig",
    "JudgeLane",
    "JudgeRun",
    "JudgeTask",
    "JudgeVersion",
    "MemberVerdict",
    "OutputProbe",
    "PromptTemplate",
    "Verdict",
]
