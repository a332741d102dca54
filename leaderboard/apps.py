import logging

from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _

logger = logging.getLogger(__name__)


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = _("Leaderboards and agreement")

    def ready(self) -> None:
        # The audit log's filter and labels list every app's actions, recorded yet or not.
        import leaderboard.audit_actions  # noqa: F401
        from annotation.signals import round_ratings_changed
        from leaderboard.places import places_fill

        places_fill()

        round_ratings_changed.connect(_queue_decision_check, dispatch_uid="leaderboard.stop")


def _queue_decision_check(sender, round_id: int, **kwargs) -> None:
    """After ratings of a round are committed, check its sequential test in the background
    (the check is idempotent, so a lost or repeated message does no harm)."""
    from leaderboard.tasks import round_decision_check_task

    try:
        round_decision_check_task.delay(round_id)
    except Exception as exc:  # the broker's client raises many types; all mean "not queued"
        if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
            raise
        # The next submission queues the check again; the ratings are saved either way.
        logger.warning("decision check for round %s not queued: %s", round_id, exc)
