"""Settings shared by every environment; every value that differs between machines comes
from the environment (see the README's table of variables)."""

from pathlib import Path

import environ
from django.utils.translation import gettext_lazy as _

from config.version import CONCORD_VERSION

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(environ.Env().str("CONCORD_VAR_DIR", default=str(BASE_DIR / "var")))

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "core",
    "accounts",
    "annotation",
    "judging",
    "leaderboard",
    "guides",
]

MIDDLEWARE = [
    "config.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.LoginDeviceMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "config.middleware.ContentSecurityPolicyMiddleware",
    "config.middleware.InputCheckMiddleware",
    "config.middleware.DatabaseUnavailableMiddleware",
    "config.not_found.NotFoundPageMiddleware",
]

# Scripts only from this site's own files: no inline <script> and no inline event handlers
# (onchange=...), so injected markup cannot run. Styles may use style attributes (the heat
# map's colours) but not <style> elements.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "style-src-attr 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

ROOT_URLCONF = "config.urls"
# bench/load.py's bare view (/bench/ceiling); never set in production.
BENCH_CEILING = env.bool("CONCORD_BENCH_CEILING", default=False)
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.context.version",
                "config.context.currency",
            ],
        },
    },
]


def _database() -> dict:
    db = env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'concord.sqlite3'}")
    if db["ENGINE"] == "django.db.backends.sqlite3":
        # WAL lets the web server read while a worker writes; IMMEDIATE makes writers queue
        # on the busy timeout instead of failing with "database is locked".
        db["OPTIONS"] = {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 30,
        }
    else:
        db.setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
        db["CONN_HEALTH_CHECKS"] = True
    return db


DATABASES = {"default": _database()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = ["accounts.backends.ThrottledModelBackend"]
# Sessions live in the database by default (Django's, read by one plain statement:
# accounts/sessions.py), so signing out ends a session everywhere: a copy of the cookie taken
# before is worth nothing after. SESSION_ENGINE=
# django.contrib.sessions.backends.signed_cookies keeps them in a cookie signed with
# SECRET_KEY instead, which saves one query per request (measured: no less CPU, see
# docs/performance.md) but leaves a copied cookie valid after sign-out until it expires,
# unless the password changes or the account is deactivated (both checked on each request).
SESSION_ENGINE = env.str("SESSION_ENGINE", default="accounts.sessions")
# Login throttle (accounts/throttle.py): this many failures for one username from one address
# within the window pause that pair for the lockout.
LOGIN_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=5)
LOGIN_FAILURE_WINDOW_SECONDS = env.int("LOGIN_FAILURE_WINDOW_SECONDS", default=15 * 60)
LOGIN_LOCKOUT_SECONDS = env.int("LOGIN_LOCKOUT_SECONDS", default=15 * 60)
# ...and per username, from browsers that never signed in with it: after this many failures
# from anywhere, each further one pauses such browsers twice as long as the one before, from
# the backoff up to the lockout; the count is forgotten after a window without failures.
LOGIN_USERNAME_FREE_FAILURES = env.int("LOGIN_USERNAME_FREE_FAILURES", default=10)
LOGIN_USERNAME_BACKOFF_SECONDS = env.int("LOGIN_USERNAME_BACKOFF_SECONDS", default=60)
LOGIN_USERNAME_WINDOW_SECONDS = env.int("LOGIN_USERNAME_WINDOW_SECONDS", default=24 * 3600)
# Reverse proxies in front of the app: the client's address is read from X-Forwarded-For
# this many entries from the end (0: REMOTE_ADDR is the client).
NUM_PROXIES = env.int("NUM_PROXIES", default=0)
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env.str("TIME_ZONE", default="Asia/Shanghai")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
MEDIA_ROOT = VAR_DIR / "media"
# Files prepared by export jobs; every worker that runs them must be able to write here.
EXPORT_ROOT = Path(env.str("CONCORD_EXPORT_ROOT", default=str(VAR_DIR / "exports")))
# Uploads imported in the background wait here for a worker: every worker must be able to
# read it (a shared folder when workers run on other machines).
IMPORT_ROOT = Path(env.str("CONCORD_IMPORT_ROOT", default=str(VAR_DIR / "imports")))
# Import files larger than this (bytes) are imported by a background worker, so that no
# request waits for a long import: about 3 s of import work at this size.
IMPORT_BACKGROUND_BYTES = env.int("CONCORD_IMPORT_BACKGROUND_BYTES", default=5 * 1024 * 1024)
# Imports stream the upload; keep large files on disk rather than in memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

# One process locally; production replaces it with a cache every web worker shares.
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: its WWW-Authenticate header turns "not logged in" into a 401.
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # DRF's parsers, refusing deep nesting, NUL characters and lone surrogates (400).
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.CheckedJSONParser",
        "config.parsers.CheckedFormParser",
        "config.parsers.CheckedMultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    # 50 a page, set on the class (config/pagination.py says why).
    "DEFAULT_PAGINATION_CLASS": "config.pagination.ApiPagination",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Concord API",
    "DESCRIPTION": "Rubric benchmarks, blind expert review and LLM-judge validation.",
    "VERSION": CONCORD_VERSION,
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["accounts.access.ReadsApiDocs"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "RubricVersionSourceEnum": "annotation.models.RubricVersion.Source",
        "ResponseSourceEnum": "annotation.models.Response.Source",
        "SystemKindEnum": "annotation.models.System.Kind",
        "PromptKindEnum": "judging.models.PromptTemplate.Kind",
        # Three models have a "status": naming each keeps the judge run's enum StatusEnum.
        "StatusEnum": "judging.models.JudgeRun.Status",
        "ReviewRoundStatusEnum": "annotation.models.ReviewRound.Status",
        "AssignmentStatusEnum": "annotation.models.Assignment.Status",
        # A round reports its design (three); opening one offers two (the third needs a run).
        "ReviewRoundSamplingEnum": "annotation.models.ReviewRound.Sampling",
    },
}

# Judge endpoints (judging/endpoints.py): which environment variables may hold a judge's
# API key, which hosts requests may go to, and whether loopback and private addresses may.
JUDGE_KEY_VARIABLES = env.str(
    "CONCORD_JUDGE_KEY_VARIABLES", default=r"OPENAI_API_KEY|CONCORD_JUDGE_KEY_[A-Z0-9_]+"
)
JUDGE_BASE_URLS = env.list("CONCORD_JUDGE_BASE_URLS", default=[])
JUDGE_BASE_URLS_REQUIRED = False
JUDGE_ALLOW_PRIVATE_URLS = env.bool("CONCORD_JUDGE_ALLOW_PRIVATE_URLS", default=True)

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
# The filesystem transport needs no server: producer and workers exchange messages through
# a folder, which is enough for one machine.
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(VAR_DIR / "broker"),
        "data_folder_out": str(VAR_DIR / "broker"),
        "processed_folder": str(VAR_DIR / "broker-processed"),
        "control_folder": str(VAR_DIR / "broker-control"),
        "store_processed": False,
    }
    if CELERY_BROKER_URL.startswith("filesystem://")
    # A broker that does not answer is reported within seconds instead of blocking a page.
    else {"socket_connect_timeout": env.float("CELERY_BROKER_CONNECT_TIMEOUT", default=5.0)}
    if CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
    else {}
)
CELERY_BROKER_CONNECTION_TIMEOUT = env.float("CELERY_BROKER_CONNECT_TIMEOUT", default=5.0)
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True

LOG_FORMAT = env.str("LOG_FORMAT", default="text")  # "json" for one JSON object per line
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "config.logging.RequestIdFilter"}},
    "formatters": {
        "json": {"()": "config.logging.JsonFormatter"},
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": LOG_FORMAT if LOG_FORMAT in ("json", "text") else "text",
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}

# The currency of judge prices, run costs and piece rates (an ISO 4217 code such as CNY or
# USD), shown beside every amount; amounts are stored as entered, never converted.
CURRENCY = env("CONCORD_CURRENCY", default="CNY").strip().upper() or "CNY"
