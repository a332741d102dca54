from django.urls import path

from leaderboard.views import (
    agreement,
    gate_policy,
    judge_selection,
    leaderboard,
    round_stop,
    rubric_health,
)

urlpatterns = [
    path(
        "agreement/rounds/<int:round_id>/sequential/",
        round_stop.round_sequential_card,
        name="round-sequential",
    ),
    path("agreement/round-plan/", round_stop.round_plan_panel, name="round-plan"),
    path("benchmarks/<slug:slug>/agreement/", agreement.agreement_page, name="agreement"),
    path("benchmarks/<slug:slug>/agreement/gate/", agreement.gate_record, name="gate-record"),
    path("benchmarks/<slug:slug>/gate-policy/", gate_policy.gate_policy_page, name="gate-policy"),
    path(
        "benchmarks/<slug:slug>/agreement/judges/",
        judge_selection.judge_selection_page,
        name="judge-selection",
    ),
    path(
        "benchmarks/<slug:slug>/agreement/disagreements/",
        agreement.disagreement_page,
        name="disagreements",
    ),
    path(
        "benchmarks/<slug:slug>/agreement/disagreements/<int:response_id>/",
        agreement.disagreement_case_page,
        name="disagreement-case",
    ),
    path(
        "benchmarks/<slug:slug>/rubrics/health/",
        rubric_health.rubric_health_page,
        name="rubric-health",
    ),
    path(
        "benchmarks/<slug:slug>/cases/<str:external_id>/rubric/health/",
        rubric_health.rubric_health_versions,
        name="rubric-health-versions",
    ),
    path("benchmarks/<slug:slug>/leaderboard/", leaderboard.leaderboard_page, name="leaderboard"),
    path(
        "benchmarks/<slug:slug>/leaderboard/publish/",
        leaderboard.leaderboard_publish_view,
        name="leaderboard-publish",
    ),
    path(
        "benchmarks/<slug:slug>/leaderboard/published/<int:snapshot_id>/",
        leaderboard.snapshot_page,
        name="leaderboard-snapshot",
    ),
    path(
        "benchmarks/<slug:slug>/leaderboard/published/<int:snapshot_id>/bundle.zip",
        leaderboard.snapshot_bundle,
        name="leaderboard-bundle",
    ),
]
