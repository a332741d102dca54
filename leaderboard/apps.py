from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = _("Leaderboards and agreement")
