from django.apps import AppConfig


class GuidesConfig(AppConfig):
    name = "guides"
    verbose_name = "Help"
