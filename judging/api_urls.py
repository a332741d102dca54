from django.urls import path

from judging import api

urlpatterns = [
    path("prompt-templates/", api.PromptList.as_view(), name="api-prompt-list"),
    path("judge-configs/", api.ConfigCollection.as_view(), name="api-judge-config-list"),
    path("judge-configs/<int:pk>/", api.ConfigItem.as_view(), name="api-judge-config-detail"),
    path("judge-runs/", api.RunCollection.as_view(), name="api-judge-run-list"),
    path("judge-runs/<int:run_id>/", api.RunItem.as_view(), name="api-judge-run-detail"),
    path(
        "judge-runs/<int:run_id>/<str:action>/",
        api.RunControl.as_view(),
        name="api-judge-run-control",
    ),
]
