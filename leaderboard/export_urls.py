from django.urls import path

from leaderboard.views import exports, report

urlpatterns = [
    path("benchmarks/<slug:slug>/exports/", exports.exports_page, name="exports"),
    path(
        "benchmarks/<slug:slug>/exports/<str:kind>.<str:fmt>",
        exports.export_download,
        name="export-download",
    ),
    path("benchmarks/<slug:slug>/exports/jobs/", exports.export_jobs_fragment, name="export-jobs"),
    path("benchmarks/<slug:slug>/exports/jobs/new/", exports.export_job_new, name="export-job-new"),
    path(
        "benchmarks/<slug:slug>/exports/jobs/<int:job_id>/download/",
        exports.export_job_download,
        name="export-job-download",
    ),
    path("benchmarks/<slug:slug>/agreement/report.pdf", report.agreement_pdf, name="agreement-pdf"),
]
