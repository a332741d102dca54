"""Production: everything from the environment, nothing guessed."""

from config.settings.base import *  # noqa: F403
from config.settings.base import VAR_DIR, env

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY")  # required: raises ImproperlyConfigured when missing
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")

# A cache every gunicorn worker on the machine shares (the login throttle counts in the
# database, so nothing of Concord's needs it shared further).
CACHES = {"default": env.cache("CACHE_URL", default=f"filecache://{VAR_DIR / 'cache'}")}

# Judge requests go only to hosts the operator lists, and never to private addresses
# unless allowed (judging/endpoints.py).
JUDGE_BASE_URLS_REQUIRED = True
JUDGE_ALLOW_PRIVATE_URLS = env.bool("CONCORD_JUDGE_ALLOW_PRIVATE_URLS", default=False)

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
# Load balancers and monitors probe the health endpoint over plain HTTP on the host itself.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

LOGGING["handlers"]["console"]["formatter"] = env.str("LOG_FORMAT", default="json")  # noqa: F405

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
