from django.urls import path

from config.lazy_views import lazy_view

urlpatterns = [
    path(
        "benchmarks/<slug:slug>/exports/",
        lazy_view("leaderboard.exports.views.exports_page"),
        name="exports",
    ),
    path(
        "benchmarks/<slug:slug>/exports/rounds/<int:round_id>/healthbench-meta.jsonl",
        lazy_view("leaderboard.exports.views.healthbench_meta_download"),
        name="export-healthbench-meta",
    ),
    path(
        "benchmarks/<slug:slug>/exports/<str:kind>.<str:fmt>",
        lazy_view("leaderboard.exports.views.export_download"),
        name="export-download",
    ),
    path(
        "benchmarks/<slug:slug>/exports/jobs/",
        lazy_view("leaderboard.exports.views.export_jobs_fragment"),
        name="export-jobs",
    ),
    path(
        "benchmarks/<slug:slug>/exports/jobs/new/",
        lazy_view("leaderboard.exports.views.export_job_new"),
        name="export-job-new",
    ),
    path(
        "benchmarks/<slug:slug>/exports/jobs/<int:job_id>/download/",
        lazy_view("leaderboard.exports.views.export_job_download"),
        name="export-job-download",
    ),
    path(
        "benchmarks/<slug:slug>/agreement/report.pdf",
        lazy_view("leaderboard.report.views.pdf.agreement_pdf"),
        name="agreement-pdf",
    ),
]
