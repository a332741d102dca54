from django.urls import include, path

from config import api_docs
from config.lazy_views import lazy_view

urlpatterns = [
    path("schema/", api_docs.schema, name="api-schema"),
    # The split view serves Swagger UI's start-up code as a script file (?script), which
    # the Content-Security-Policy allows; the plain view writes it inline.
    path("docs/", api_docs.docs, name="api-docs"),
    path("version/", lazy_view("config.api_version.Version"), name="api-version"),
    path("", include("annotation.api.urls")),
    path("", include("judging.api_urls")),
    path("", include("leaderboard.api_urls")),
]
