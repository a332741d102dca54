import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

from config.lazy_views import lazy_views_load
from config.template_warmup import templates_compile

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
application = get_wsgi_application()

# Import every view and compile every template now rather than on the first request, then
# set everything made so far (Django, the apps, their modules) aside from the cyclic garbage
# collector: it lives as long as the process, and each collection would otherwise walk all
# of it again.
get_resolver().url_patterns  # noqa: B018 - loads the URL configuration
lazy_views_load()  # and the views it names by path (config/lazy_views.py)
templates_compile()
gc.freeze()
