"""The three roles and what each may do. Groups are synced from this table after every
migration, so a permission added here reaches existing installations."""

from django.utils.translation import gettext_noop

# The role names are group names stored in the database; pages translate them when shown.
EXPERT = gettext_noop("Expert")
SENIOR_EXPERT = gettext_noop("Senior expert")
COORDINATOR = gettext_noop("Coordinator")
RESEARCHER = gettext_noop("Researcher")
ROLES = (EXPERT, SENIOR_EXPERT, COORDINATOR, RESEARCHER)

# Reading benchmarks, cases, rubrics and responses with the systems that wrote them.
_READ = [
    "annotation.view_benchmark",
    "annotation.view_case",
    "annotation.view_scenario",
    "annotation.view_rubricversion",
    "annotation.view_criterion",
    "annotation.view_system",
    "annotation.view_response",
    "annotation.view_system_identity",
    "judging.view_judgerun",
    "judging.view_judgeconfig",
    "judging.view_prompttemplate",
]

ROLE_PERMISSIONS: dict[str, list[str]] = {
    # Experts work blind: they reach their own assignments and rubric discussions, never
    # the case pages that list responses next to the systems that wrote them.
    EXPERT: [
        "annotation.comment_rubric",
        "annotation.annotate",
        "annotation.discuss_item",
        "annotation.read_guidance",
    ],
    # Senior experts also refine rubrics and settle split items; still blind to systems.
    SENIOR_EXPERT: [
        "annotation.comment_rubric",
        "annotation.annotate",
        "annotation.author_rubric",
        "annotation.adjudicate",
        "annotation.discuss_item",
        "annotation.read_guidance",
    ],
    COORDINATOR: [
        *_READ,
        "annotation.import_data",
        "annotation.author_rubric",
        "annotation.comment_rubric",
        "annotation.view_audit",
        "annotation.manage_review",
        "annotation.view_consensus",
        "annotation.adjudicate",
        "annotation.discuss_item",
        "annotation.read_guidance",
        "judging.run_judge",
        "leaderboard.record_gate",
        "leaderboard.change_gatepolicy",
        "leaderboard.publish_leaderboard",
        "leaderboard.export_data",
        "judging.add_judgeconfig",
        "judging.change_judgeconfig",
        "annotation.add_benchmark",
        "annotation.add_case",
        "annotation.add_rubricversion",
        "annotation.add_system",
        "annotation.add_response",
        "annotation.read_api_docs",
        "accounts.manage_people",
    ],
    # Researchers read and export; recording a gate evaluation is their one write: it adds a
    # record and changes no data (only coordinators publish).
    RESEARCHER: [
        *_READ,
        "annotation.view_consensus",
        "leaderboard.export_data",
        "leaderboard.record_gate",
        "annotation.read_api_docs",
    ],
}
