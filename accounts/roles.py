"""The three roles and what each may do. Groups are synced from this table after every
migration, so a permission added here reaches existing installations."""

from django.utils.translation import gettext_noop

from core.permissions import Perm

# The role names are group names stored in the database; pages translate them when shown.
EXPERT = gettext_noop("Expert")
SENIOR_EXPERT = gettext_noop("Senior expert")
COORDINATOR = gettext_noop("Coordinator")
RESEARCHER = gettext_noop("Researcher")
ROLES = (EXPERT, SENIOR_EXPERT, COORDINATOR, RESEARCHER)

# Reading benchmarks, cases, rubrics and responses with the systems that wrote them.
_READ = [
    Perm.VIEW_BENCHMARK,
    Perm.VIEW_CASE,
    Perm.VIEW_SCENARIO,
    Perm.VIEW_RUBRICVERSION,
    Perm.VIEW_CRITERION,
    Perm.VIEW_SYSTEM,
    Perm.VIEW_RESPONSE,
    Perm.VIEW_SYSTEM_IDENTITY,
    Perm.VIEW_JUDGERUN,
    Perm.VIEW_JUDGECONFIG,
    Perm.VIEW_PROMPTTEMPLATE,
]

ROLE_PERMISSIONS: dict[str, list[Perm]] = {
    # Experts work blind: they reach their own assignments and rubric discussions, never
    # the case pages that list responses next to the systems that wrote them.
    EXPERT: [
        Perm.COMMENT_RUBRIC,
        Perm.ANNOTATE,
        Perm.DISCUSS_ITEM,
        Perm.READ_GUIDANCE,
    ],
    # Senior experts also refine rubrics and settle split items; still blind to systems.
    SENIOR_EXPERT: [
        Perm.COMMENT_RUBRIC,
        Perm.ANNOTATE,
        Perm.AUTHOR_RUBRIC,
        Perm.ADJUDICATE,
        Perm.DISCUSS_ITEM,
        Perm.READ_GUIDANCE,
    ],
    COORDINATOR: [
        *_READ,
        Perm.IMPORT_DATA,
        Perm.AUTHOR_RUBRIC,
        Perm.COMMENT_RUBRIC,
        Perm.VIEW_AUDIT,
        Perm.MANAGE_REVIEW,
        Perm.VIEW_CONSENSUS,
        Perm.ADJUDICATE,
        Perm.DISCUSS_ITEM,
        Perm.READ_GUIDANCE,
        Perm.RUN_JUDGE,
        Perm.RECORD_GATE,
        Perm.CHANGE_GATEPOLICY,
        Perm.PUBLISH_LEADERBOARD,
        Perm.EXPORT_DATA,
        Perm.ADD_JUDGECONFIG,
        Perm.CHANGE_JUDGECONFIG,
        Perm.ADD_BENCHMARK,
        Perm.ADD_CASE,
        Perm.ADD_RUBRICVERSION,
        Perm.ADD_SYSTEM,
        Perm.ADD_RESPONSE,
        Perm.READ_API_DOCS,
        Perm.MANAGE_PEOPLE,
    ],
    # Researchers read and export; recording a gate evaluation is their one write: it adds a
    # record and changes no data (only coordinators publish).
    RESEARCHER: [
        *_READ,
        Perm.VIEW_CONSENSUS,
        Perm.EXPORT_DATA,
        Perm.RECORD_GATE,
        Perm.READ_API_DOCS,
    ],
}
