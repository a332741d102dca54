"""What the leaderboard records in the audit log: gates, gate policies, publishing."""

from django.utils.translation import gettext_lazy as _

from core.audit import register

GATE_EVALUATED = register("leaderboard.gate_evaluated", _("gate evaluated"))
GATE_POLICY_CHANGED = register("leaderboard.gate_policy_changed", _("gate policy changed"))
LEADERBOARD_PUBLISHED = register("leaderboard.published", _("leaderboard published"))
