from annotation.models.authoring import RubricComment, RubricDraft
from annotation.models.benchmarks import Benchmark, Case, Scenario
from annotation.models.discussion import ItemDiscussionPost
from annotation.models.guidance import FaqEntry, WorkedExample
from annotation.models.imports import ImportJob
from annotation.models.responses import Response, System
from annotation.models.review import (
    Adjudication,
    Assignment,
    ExpertProfile,
    Flag,
    Guideline,
    RaterPseudonym,
    ReferenceAnswer,
    ReviewItem,
    ReviewRound,
    Vote,
    VotesSeen,
)
from annotation.models.rubrics import (
    WEIGHT_MAX,
    WEIGHT_MIN,
    Criterion,
    ImmutableRecordError,
    RubricVersion,
)
from annotation.models.taxonomy import Ability, Category

__all__ = [
    "WEIGHT_MAX",
    "WEIGHT_MIN",
    "Ability",
    "Adjudication",
    "Assignment",
    "Benchmark",
    "Case",
    "Category",
    "Criterion",
    "ExpertProfile",
    "FaqEntry",
    "Flag",
    "Guideline",
    "ImmutableRecordError",
    "ImportJob",
    "ItemDiscussionPost",
    "RaterPseudonym",
    "ReferenceAnswer",
    "Response",
    "ReviewItem",
    "ReviewRound",
    "RubricComment",
    "RubricDraft",
    "RubricVersion",
    "Scenario",
    "System",
    "Vote",
    "VotesSeen",
    "WorkedExample",
]
