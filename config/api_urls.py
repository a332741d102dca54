from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up code as a script file (?script), which
    # the Content-Security-Policy allows; the plain view writes it inline.
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include("annotation.api.urls")),
    path("", include("judging.api_urls")),
    path("", include("leaderboard.api_urls")),
]
