from django.urls import path

from annotation.api import rubrics, views

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
]
