from django.urls import path

from leaderboard.views import exports

urlpatterns = [
    path("benchmarks/<slug:slug>/exports/", exports.exports_page, name="exports"),
    path(
        "benchmarks/<slug:slug>/exports/<str:kind>.<str:fmt>",
        exports.export_download,
        name="export-download",
    ),
]
