from django.urls import path

from leaderboard import api, api_compare, api_export_jobs

urlpatterns = [
    path("benchmarks/<slug:slug>/agreement/", api.AgreementReport.as_view(), name="api-agreement"),
    path("benchmarks/<slug:slug>/leaderboard/", api.Leaderboard.as_view(), name="api-leaderboard"),
    path(
        "benchmarks/<slug:slug>/compare-runs/",
        api_compare.CompareRuns.as_view(),
        name="api-compare-runs",
    ),
    path(
        "benchmarks/<slug:slug>/judge-selection/",
        api_compare.JudgeSelection.as_view(),
        name="api-judge-selection",
    ),
    path(
        "benchmarks/<slug:slug>/gate-evaluations/",
        api.GateEvaluations.as_view(),
        name="api-gate-evaluations",
    ),
    path(
        "benchmarks/<slug:slug>/leaderboards/",
        api.Leaderboards.as_view(),
        name="api-leaderboards",
    ),
    path(
        "benchmarks/<slug:slug>/leaderboards/<int:snapshot_id>/bundle",
        api.SnapshotBundle.as_view(),
        name="api-leaderboard-bundle",
    ),
    path(
        "benchmarks/<slug:slug>/export-jobs/",
        api_export_jobs.ExportJobCollection.as_view(),
        name="api-export-job-list",
    ),
    path(
        "benchmarks/<slug:slug>/export-jobs/<int:job_id>/",
        api_export_jobs.ExportJobItem.as_view(),
        name="api-export-job-detail",
    ),
    path(
        "benchmarks/<slug:slug>/export-jobs/<int:job_id>/file",
        api_export_jobs.ExportJobFile.as_view(),
        name="api-export-job-file",
    ),
]
