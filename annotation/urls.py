from django.urls import path

from annotation.views import benchmarks, imports

urlpatterns = [
    path("benchmarks/", benchmarks.benchmark_list, name="benchmark-list"),
    path("benchmarks/<slug:slug>/", benchmarks.benchmark_detail, name="benchmark-detail"),
    path(
        "benchmarks/<slug:slug>/cases/<str:external_id>/",
        benchmarks.case_detail,
        name="case-detail",
    ),
    path("import/", imports.import_page, name="import"),
    path("import/benchmark/", imports.import_benchmark_upload, name="import-benchmark"),
    path("import/responses/", imports.import_responses_upload, name="import-responses"),
]
