from django.urls import path

from config.lazy_views import lazy_view

urlpatterns = [
    path(
        "review/manage/rounds/uncertain/",
        lazy_view("judging.api_rounds.UncertainRoundCreate"),
        name="api-review-manage-round-uncertain",
    ),
    path("prompt-templates/", lazy_view("judging.api.PromptList"), name="api-prompt-list"),
    path("judge-configs/", lazy_view("judging.api.ConfigCollection"), name="api-judge-config-list"),
    path(
        "judge-configs/<int:pk>/",
        lazy_view("judging.api.ConfigItem"),
        name="api-judge-config-detail",
    ),
    path("judge-runs/", lazy_view("judging.api.RunCollection"), name="api-judge-run-list"),
    path("judge-runs/<int:run_id>/", lazy_view("judging.api.RunItem"), name="api-judge-run-detail"),
    path(
        "judge-runs/<int:run_id>/<str:action>/",
        lazy_view("judging.api.RunControl"),
        name="api-judge-run-control",
    ),
]
