"""Column names of every export, in file order."""

TIDY_HEADER = (
    "benchmark",
    "round",
    "judge_run",
    "question_id",
    "difficulty",
    "primary_scene",
    "secondary_scene",
    "system",
    "system_kind",
    "item_code",
    "rubric_version",
    "criterion_position",
    "criterion_key",
    "ability",
    "category",
    "weight",
    "is_catastrophic",
    "rater",
    "rater_hit",
    "rater_note",
    "rater_seconds",
    "consensus",
    "consensus_votes",
    "judge_hit",
    "judge_status",
    "judge_reasoning",
)

VOTES_HEADER = (
    "benchmark",
    "round",
    "question_id",
    "system",
    "item_code",
    "criterion_position",
    "criterion_key",
    "rater",
    "assignment_status",
    "revision",
    "is_current",
    "hit",
    "note",
    "rater_seconds",
    "submitted",
    "vote_created",
)

VERDICTS_HEADER = (
    "benchmark",
    "judge_run",
    "question_id",
    "difficulty",
    "system",
    "rubric_version",
    "task_status",
    "attempts",
    "prompt_tokens",
    "completion_tokens",
    "task_reasoning",
    "last_error",
    "criterion_position",
    "criterion_key",
    "ability",
    "category",
    "weight",
    "is_catastrophic",
    "hit",
    "reasoning",
    # An ensemble judge's members on this unit ("met/not met/failed" counts) and the share
    # of the answering members in the minority; empty for a single judge.
    "members_votes",
    "members_disagreement",
)

SCORES_HEADER = (
    "benchmark",
    "judge_run",
    "profile",
    "system",
    "system_kind",
    "question_id",
    "difficulty",
    "primary_scene",
    "secondary_scene",
    "status",
    "case_score",
    "catastrophe",
    "undefined_reason",
)
# ...then one column per ability of the run, "ability:<label>": S_d, the case's score on
# that ability (empty where the case has no criterion of it, or no score).
ABILITY_COLUMN = "ability:{}"

# What the tidy file calls a judge task's state: anything not done or failed (no task,
