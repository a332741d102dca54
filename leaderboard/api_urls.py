from django.urls import path

from config.lazy_views import lazy_view

urlpatterns = [
    path(
        "benchmarks/<slug:slug>/agreement/",
        lazy_view("leaderboard.api.AgreementReport"),
        name="api-agreement",
    ),
    path(
        "benchmarks/<slug:slug>/leaderboard/",
        lazy_view("leaderboard.api.Leaderboard"),
        name="api-leaderboard",
    ),
    path(
        "benchmarks/<slug:slug>/compare-runs/",
        lazy_view("leaderboard.api_compare.CompareRuns"),
        name="api-compare-runs",
    ),
    path(
        "benchmarks/<slug:slug>/judge-selection/",
        lazy_view("leaderboard.api_compare.JudgeSelection"),
        name="api-judge-selection",
    ),
    path(
        "benchmarks/<slug:slug>/gate-evaluations/",
        lazy_view("leaderboard.api.GateEvaluations"),
        name="api-gate-evaluations",
    ),
    path(
        "benchmarks/<slug:slug>/leaderboards/",
        lazy_view("leaderboard.api.Leaderboards"),
        name="api-leaderboards",
    ),
    path(
        "benchmarks/<slug:slug>/leaderboards/<int:snapshot_id>/bundle",
        lazy_view("leaderboard.api.SnapshotBundle"),
        name="api-leaderboard-bundle",
    ),
    path(
        "benchmarks/<slug:slug>/export-jobs/",
        lazy_view("leaderboard.api_export_jobs.ExportJobCollection"),
        name="api-export-job-list",
    ),
    path(
        "benchmarks/<slug:slug>/export-jobs/<int:job_id>/",
        lazy_view("leaderboard.api_export_jobs.ExportJobItem"),
        name="api-export-job-detail",
    ),
    path(
        "benchmarks/<slug:slug>/export-jobs/<int:job_id>/file",
        lazy_view("leaderboard.api_export_jobs.ExportJobFile"),
        name="api-export-job-file",
    ),
]
