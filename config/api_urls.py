from django.urls import include, path

from config import api_docs
from config.api_version import Version

urlpatterns = [
    path("schema/", api_docs.schema, name="api-schema"),
    # The split view serves Swagger UI's start-up code as a script file (?script), which
    # the Content-Security-Policy allows; the plain view writes it inline.
    path("docs/", api_docs.docs, name="api-docs"),
    path("version/", Version.as_view(), name="api-version"),
    path("", include("annotation.api.urls")),
    path("", include("judging.api_urls")),
    path("", include("leaderboard.api_urls")),
]
