from django.urls import path

from leaderboard import api

urlpatterns = [
    path("benchmarks/<slug:slug>/agreement/", api.AgreementReport.as_view(), name="api-agreement"),
    path("benchmarks/<slug:slug>/leaderboard/", api.Leaderboard.as_view(), name="api-leaderboard"),
]
