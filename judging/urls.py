from django.urls import path

from judging.views import fewshot, prompts, runs, saturation, uncertain_rounds

urlpatterns = [
    path("judging/", runs.run_list, name="judge-runs"),
    path("judging/runs/new/", runs.run_new, name="judge-run-new"),
    path("judging/runs/<int:run_id>/", runs.run_detail, name="judge-run"),
    path(
        "judging/runs/<int:run_id>/<str:action>/",
        runs.run_control,
        name="judge-run-control",
    ),
    path(
        "benchmarks/<slug:slug>/rubrics/saturated/",
        saturation.saturated,
        name="rubric-saturated",
    ),
    path(
        "review/manage/rounds/new/uncertain/",
        uncertain_rounds.round_new_uncertain,
        name="review-round-new-uncertain",
    ),
    path("judging/configs/new/", runs.config_edit, name="judge-config-new"),
    path("judging/prompts/new/", prompts.prompt_upload, name="prompt-upload"),
    path("judging/configs/<int:config_id>/", runs.config_detail, name="judge-config"),
    path("judging/configs/<int:config_id>/edit/", runs.config_edit, name="judge-config-edit"),
    path(
        "judging/configs/<int:config_id>/versions/<int:number>/fewshot/",
        fewshot.fewshot_page,
        name="judge-fewshot",
    ),
]
