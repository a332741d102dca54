from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from config.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("", include("accounts.urls")),
    path("", include("annotation.urls")),
    path("", include("annotation.people_urls")),
    path("", include("judging.urls")),
    path("", include("leaderboard.urls")),
    path("", include("leaderboard.exports.urls")),
    path("", include("guides.urls")),
    path("api/", include("config.api_urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]

if settings.BENCH_CEILING:
    from config.bench_views import ceiling, signed_in_floor

    urlpatterns += [
        path("bench/ceiling", ceiling, name="bench-ceiling"),
        path("bench/signed-in", signed_in_floor, name="bench-signed-in"),
    ]
