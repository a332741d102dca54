from django.urls import path

from leaderboard.views import agreement

urlpatterns = [
    path("benchmarks/<slug:slug>/agreement/", agreement.agreement_page, name="agreement"),
    path("benchmarks/<slug:slug>/agreement/gate/", agreement.gate_record, name="gate-record"),
    path(
        "benchmarks/<slug:slug>/agreement/disagreements/",
        agreement.disagreement_page,
        name="disagreements",
    ),
    path("benchmarks/<slug:slug>/leaderboard/", agreement.leaderboard_page, name="leaderboard"),
    path(
        "benchmarks/<slug:slug>/leaderboard/publish/",
        agreement.leaderboard_publish_view,
        name="leaderboard-publish",
    ),
    path(
        "benchmarks/<slug:slug>/leaderboard/published/<int:snapshot_id>/",
        agreement.snapshot_page,
        name="leaderboard-snapshot",
    ),
]
