"""What judging records in the audit log: judge configurations and runs."""

from django.utils.translation import gettext_lazy as _

from core.audit import register

JUDGE_CONFIG_CREATED = register("judging.config_created", _("judge configuration created"))
JUDGE_CONFIG_CHANGED = register("judging.config_changed", _("judge configuration changed"))
RUN_STARTED = register("judging.run_started", _("judge run started"))
RUN_PAUSED = register("judging.run_paused", _("judge run paused"))
RUN_RESUMED = register("judging.run_resumed", _("judge run resumed"))
RUN_CANCELLED = register("judging.run_cancelled", _("judge run cancelled"))
