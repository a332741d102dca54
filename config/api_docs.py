"""The API's schema and its Swagger UI, built on their first request: drf-spectacular's
views import the schema generator and its dependencies, which every command and worker
would otherwise load at start-up through the URL configuration."""

from functools import cache

from django.http import HttpRequest, HttpResponse


@cache
def _schema_view():
    from drf_spectacular.views import SpectacularAPIView

    return SpectacularAPIView.as_view()


@cache
def _docs_view():
    from drf_spectacular.views import SpectacularSwaggerSplitView

    return SpectacularSwaggerSplitView.as_view(url_name="api-schema")


def schema(request: HttpRequest, *args, **kwargs) -> HttpResponse:
    return _schema_view()(request, *args, **kwargs)


def docs(request: HttpRequest, *args, **kwargs) -> HttpResponse:
    return _docs_view()(request, *args, **kwargs)
