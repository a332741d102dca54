from django.urls import path

from annotation.views import (
    audit,
    benchmarks,
    guidance,
    imports,
    item_discussion,
    review_adjudication,
    review_expert,
    review_manage,
    rubric_editor,
    rubric_history,
    rubric_overview,
)

CASE = "benchmarks/<slug:slug>/cases/<str:external_id>/"

urlpatterns = [
    path("benchmarks/", benchmarks.benchmark_list, name="benchmark-list"),
    path("benchmarks/<slug:slug>/", benchmarks.benchmark_detail, name="benchmark-detail"),
    path(
        "benchmarks/<slug:slug>/rubrics/", rubric_overview.rubric_overview, name="rubric-overview"
    ),
    path(
        "benchmarks/<slug:slug>/rubrics/export.jsonl",
        rubric_overview.rubric_export,
        name="rubric-export",
    ),
    path(CASE, benchmarks.case_detail, name="case-detail"),
    path(CASE + "rubric/", rubric_editor.rubric_editor, name="rubric-editor"),
    path(CASE + "rubric/draft/", rubric_editor.rubric_draft, name="rubric-draft"),
    path(CASE + "rubric/publish/", rubric_editor.rubric_publish, name="rubric-publish"),
    path(CASE + "rubric/rebase/", rubric_editor.rubric_rebase, name="rubric-rebase"),
    path(CASE + "rubric/discard/", rubric_editor.rubric_discard, name="rubric-discard"),
    path(CASE + "rubric/comments/", rubric_editor.rubric_comment, name="rubric-comment"),
    path(CASE + "rubric/history/", rubric_history.rubric_history, name="rubric-history"),
    path(
        CASE + "rubric/restore/<int:number>/",
        rubric_history.rubric_restore,
        name="rubric-restore",
    ),
    path("audit/", audit.audit_log, name="audit-log"),
    path("audit/export.<str:fmt>", audit.audit_export, name="audit-export"),
    path("review/", review_expert.my_work, name="review-my-work"),
    path("review/rounds/<int:round_id>/next/", review_expert.next_item, name="review-next"),
    path("review/work/<int:assignment_id>/", review_expert.annotate, name="review-annotate"),
    path(
        "review/work/<int:assignment_id>/autosave/",
        review_expert.autosave,
        name="review-autosave",
    ),
    path("review/work/<int:assignment_id>/submit/", review_expert.submit, name="review-submit"),
    path("review/work/<int:assignment_id>/flag/", review_expert.flag, name="review-flag"),
    path("review/work/<int:assignment_id>/skip/", review_expert.skip, name="review-skip"),
    path(
        "review/rounds/<int:round_id>/submitted/",
        review_expert.my_submitted,
        name="review-my-submitted",
    ),
    path("review/manage/", review_manage.round_list, name="review-rounds"),
    path("review/manage/rounds/new/", review_manage.round_new, name="review-round-new"),
    path("review/manage/rounds/<int:round_id>/", review_manage.round_detail, name="review-round"),
    path(
        "review/manage/rounds/<int:round_id>/consensus/",
        review_manage.round_consensus_page,
        name="review-consensus",
    ),
    path(
        "review/manage/rounds/<int:round_id>/piece-rate.csv",
        review_manage.piece_rate_csv,
        name="review-piece-rate",
    ),
    path(
        "review/manage/rounds/<int:round_id>/close/",
        review_manage.round_close,
        name="review-round-close",
    ),
    path(
        "review/manage/rounds/<int:round_id>/<str:action>/",
        review_manage.round_action,
        name="review-round-action",
    ),
    path(
        "review/items/<int:item_id>/discussion/",
        item_discussion.item_discussion,
        name="review-discussion",
    ),
    path(
        "review/manage/adjudication/",
        review_adjudication.adjudication_list,
        name="review-adjudication",
    ),
    path(
        "review/manage/items/<int:item_id>/adjudicate/",
        review_adjudication.adjudicate,
        name="review-adjudicate",
    ),
    path(
        "review/manage/items/<int:item_id>/references/",
        review_manage.references_edit,
        name="review-references",
    ),
    path(
        "review/manage/benchmarks/<slug:slug>/guidelines/",
        review_manage.guidelines_edit,
        name="review-guidelines",
    ),
    path("review/rounds/<int:round_id>/guidance/", guidance.guidance, name="review-guidance"),
    path("review/manage/benchmarks/<slug:slug>/faq/", guidance.faq_manage, name="review-faq"),
    path(
        "review/manage/benchmarks/<slug:slug>/examples/",
        guidance.examples_manage,
        name="review-examples",
    ),
    path("import/", imports.import_page, name="import"),
    path("import/benchmark/", imports.import_benchmark_upload, name="import-benchmark"),
    path("import/responses/", imports.import_responses_upload, name="import-responses"),
    path("import/jobs/<int:import_job_id>/", imports.import_job, name="import-job"),
]
