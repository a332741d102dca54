from django.urls import path

from annotation.api import import_jobs, rubrics, views
from annotation.api import review_coordinator as coordinator
from annotation.api import review_expert as expert

urlpatterns = [
    path("benchmarks/", views.BenchmarkList.as_view(), name="api-benchmark-list"),
    path("benchmarks/<slug:slug>/", views.BenchmarkDetail.as_view(), name="api-benchmark-detail"),
    path(
        "benchmarks/<slug:slug>/import/",
        views.BenchmarkImport.as_view(),
        name="api-benchmark-import",
    ),
    path("benchmarks/<slug:slug>/cases/", views.CaseList.as_view(), name="api-case-list"),
    path(
        "benchmarks/<slug:slug>/cases/<str:external_id>/",
        views.CaseDetail.as_view(),
        name="api-case-detail",
    ),
    path(
        "benchmarks/<slug:slug>/cases/<str:external_id>/rubric-versions/",
        rubrics.RubricVersionCollection.as_view(),
        name="api-rubric-version-list",
    ),
    path(
        "benchmarks/<slug:slug>/cases/<str:external_id>/rubric-versions/diff/",
        rubrics.RubricVersionDiff.as_view(),
        name="api-rubric-version-diff",
    ),
    path(
        "benchmarks/<slug:slug>/rubrics/export/",
        rubrics.RubricExport.as_view(),
        name="api-rubric-export",
    ),
    path(
        "benchmarks/<slug:slug>/cases/<str:external_id>/rubric-versions/<int:number>/",
        views.RubricVersionDetail.as_view(),
        name="api-rubric-version-detail",
    ),
    path(
        "benchmarks/<slug:slug>/responses/", views.ResponseList.as_view(), name="api-response-list"
    ),
    path(
        "benchmarks/<slug:slug>/responses/import/",
        views.ResponsesImport.as_view(),
        name="api-responses-import",
    ),
    path("systems/", views.SystemList.as_view(), name="api-system-list"),
    path("import-jobs/", import_jobs.ImportJobList.as_view(), name="api-import-job-list"),
    path(
        "import-jobs/<int:import_job_id>/",
        import_jobs.ImportJobItem.as_view(),
        name="api-import-job-detail",
    ),
    # Blind review, the expert's side.
    path("review/rounds/", expert.ExpertRoundList.as_view(), name="api-review-rounds"),
    path(
        "review/rounds/<int:round_id>/next/",
        expert.ExpertNextItem.as_view(),
        name="api-review-next",
    ),
    path(
        "review/assignments/<int:assignment_id>/",
        expert.ExpertAssignmentDetail.as_view(),
        name="api-review-assignment",
    ),
    path(
        "review/assignments/<int:assignment_id>/autosave/",
        expert.ExpertAutosave.as_view(),
        name="api-review-autosave",
    ),
    path(
        "review/assignments/<int:assignment_id>/submit/",
        expert.ExpertSubmit.as_view(),
        name="api-review-submit",
    ),
    path(
        "review/assignments/<int:assignment_id>/flag/",
        expert.ExpertFlag.as_view(),
        name="api-review-flag",
    ),
    # Blind review, the coordinator's side.
    path(
        "review/manage/rounds/",
        coordinator.RoundCollection.as_view(),
        name="api-review-manage-rounds",
    ),
    path(
        "review/manage/rounds/<int:round_id>/",
        coordinator.RoundDetail.as_view(),
        name="api-review-manage-round",
    ),
    path(
        "review/manage/rounds/<int:round_id>/extend/",
        coordinator.RoundExtend.as_view(),
        name="api-review-manage-round-extend",
    ),
    path(
        "review/manage/rounds/<int:round_id>/status/",
        coordinator.RoundStatus.as_view(),
        name="api-review-manage-round-status",
    ),
    path(
        "review/manage/rounds/<int:round_id>/consensus/",
        coordinator.RoundConsensus.as_view(),
        name="api-review-manage-round-consensus",
    ),
    path(
        "review/manage/assignments/<int:assignment_id>/reassign/",
        coordinator.AssignmentReassign.as_view(),
        name="api-review-manage-reassign",
    ),
    path(
        "review/manage/benchmarks/<slug:slug>/guidelines/",
        coordinator.BenchmarkGuidelines.as_view(),
        name="api-review-manage-guidelines",
    ),
    path(
        "review/manage/items/<int:item_id>/references/",
        coordinator.ItemReferences.as_view(),
        name="api-review-manage-references",
    ),
    path(
        "review/manage/items/<int:item_id>/adjudicate/",
        coordinator.ItemAdjudicate.as_view(),
        name="api-review-manage-adjudicate",
    ),
]
