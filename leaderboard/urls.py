from django.urls import path

from config.lazy_views import lazy_view

urlpatterns = [
    path(
        "benchmarks/<slug:slug>/agreement/",
        lazy_view("leaderboard.views.agreement.agreement_page"),
        name="agreement",
    ),
    path(
        "benchmarks/<slug:slug>/agreement/gate/",
        lazy_view("leaderboard.views.agreement.gate_record"),
        name="gate-record",
    ),
    path(
        "benchmarks/<slug:slug>/agreement/disagreements/",
        lazy_view("leaderboard.views.agreement.disagreement_page"),
        name="disagreements",
    ),
    path(
        "benchmarks/<slug:slug>/agreement/disagreements/<int:response_id>/",
        lazy_view("leaderboard.views.agreement.disagreement_case_page"),
        name="disagreement-case",
    ),
    path(
        "benchmarks/<slug:slug>/leaderboard/",
        lazy_view("leaderboard.views.leaderboard.leaderboard_page"),
        name="leaderboard",
    ),
    path(
        "benchmarks/<slug:slug>/leaderboard/publish/",
        lazy_view("leaderboard.views.leaderboard.leaderboard_publish_view"),
        name="leaderboard-publish",
    ),
    path(
        "benchmarks/<slug:slug>/leaderboard/published/<int:snapshot_id>/",
        lazy_view("leaderboard.views.leaderboard.snapshot_page"),
        name="leaderboard-snapshot",
    ),
    path(
        "benchmarks/<slug:slug>/leaderboard/published/<int:snapshot_id>/bundle.zip",
        lazy_view("leaderboard.views.leaderboard.snapshot_bundle"),
        name="leaderboard-bundle",
    ),
]
