"""Every permission the project checks, by one name each. A Perm is the str Django reads
("app_label.codename"), so it goes wherever a permission name does: has_perm,
permission_needed, a DRF view's required_permission, the roles' table. Templates keep
`perms.app_label.codename`."""

from enum import StrEnum


class Perm(StrEnum):
    # Reading benchmarks, cases, rubrics and responses.
    VIEW_BENCHMARK = "annotation.view_benchmark"
    VIEW_CASE = "annotation.view_case"
    VIEW_SCENARIO = "annotation.view_scenario"
    VIEW_RUBRICVERSION = "annotation.view_rubricversion"
    VIEW_CRITERION = "annotation.view_criterion"
    VIEW_SYSTEM = "annotation.view_system"
    VIEW_RESPONSE = "annotation.view_response"
    # Which system wrote a response (experts work blind).
    VIEW_SYSTEM_IDENTITY = "annotation.view_system_identity"
    ADD_BENCHMARK = "annotation.add_benchmark"
    ADD_CASE = "annotation.add_case"
    ADD_RUBRICVERSION = "annotation.add_rubricversion"
    ADD_SYSTEM = "annotation.add_system"
    ADD_RESPONSE = "annotation.add_response"
    IMPORT_DATA = "annotation.import_data"
    AUTHOR_RUBRIC = "annotation.author_rubric"
    COMMENT_RUBRIC = "annotation.comment_rubric"
    VIEW_AUDIT = "annotation.view_audit"
    READ_API_DOCS = "annotation.read_api_docs"
    READ_GUIDANCE = "annotation.read_guidance"
    # Review rounds.
    MANAGE_REVIEW = "annotation.manage_review"
    ANNOTATE = "annotation.annotate"
    ADJUDICATE = "annotation.adjudicate"
    VIEW_CONSENSUS = "annotation.view_consensus"
    DISCUSS_ITEM = "annotation.discuss_item"
    # LLM judges.
    VIEW_JUDGERUN = "judging.view_judgerun"
    VIEW_JUDGECONFIG = "judging.view_judgeconfig"
    ADD_JUDGECONFIG = "judging.add_judgeconfig"
    CHANGE_JUDGECONFIG = "judging.change_judgeconfig"
    VIEW_PROMPTTEMPLATE = "judging.view_prompttemplate"
    RUN_JUDGE = "judging.run_judge"
    # Gates, boards and exports.
    RECORD_GATE = "leaderboard.record_gate"
    CHANGE_GATEPOLICY = "leaderboard.change_gatepolicy"
    PUBLISH_LEADERBOARD = "leaderboard.publish_leaderboard"
    EXPORT_DATA = "leaderboard.export_data"
    # People and their roles.
    MANAGE_PEOPLE = "accounts.manage_people"
