"""What annotation records in the audit log: rubric authoring, people, review rounds and
guidance (a round's sequential decision too: the round pages read it)."""

from django.utils.translation import gettext_lazy as _

from core.audit import register

RUBRIC_IMPORTED = register("rubric.imported", _("rubrics imported"))
RUBRIC_DRAFT_CREATED = register("rubric.draft_created", _("rubric draft created"))
RUBRIC_PUBLISHED = register("rubric.published", _("rubric version published"))
RUBRIC_RESTORED = register("rubric.restored", _("rubric version restored"))
RUBRIC_CONFLICT = register("rubric.conflict", _("rubric publish refused (conflict)"))
RUBRIC_REBASED = register("rubric.rebased", _("rubric draft rebased"))
INVITATION_CREATED = register("people.invited", _("invitation link created"))
INVITATION_USED = register("people.invitation_used", _("invitation link used (account made)"))
INVITATION_REVOKED = register("people.invitation_revoked", _("invitation link revoked"))
ROLES_CHANGED = register("people.roles_changed", _("roles changed"))
ACTIVATED = register("people.activated", _("account activated"))
DEACTIVATED = register("people.deactivated", _("account deactivated"))
SPECIALITIES_CHANGED = register("people.specialities_changed", _("specialities changed"))
RATE_CHANGED = register("people.rate_changed", _("piece rate changed"))
RESET_LINK_CREATED = register("people.reset_link_created", _("password reset link created"))
PASSWORD_RESET = register("people.password_reset", _("password reset with a link"))
ASSIGNMENTS_RELEASED = register("people.assignments_released", _("unstarted items released"))
ROUND_OPENED = register("review.round_opened", _("review round opened"))
ROUND_PAUSED = register("review.round_paused", _("review round paused"))
ROUND_RESUMED = register("review.round_resumed", _("review round resumed"))
ROUND_CLOSED = register("review.round_closed", _("review round closed"))
ROUND_REOPENED = register("review.round_reopened", _("review round reopened"))
ROUND_EXTENDED = register("review.round_extended", _("review round extended"))
ROUND_DECIDED = register("review.round_decided", _("sequential test decided the round"))
ASSIGNMENT_MOVED = register("review.assignment_moved", _("item moved to another expert"))
POOL_EXPERT_ADDED = register("review.pool_added", _("expert added to a round's pool"))
POOL_EXPERT_REMOVED = register("review.pool_removed", _("expert removed from a round's pool"))
FAQ_SAVED = register("guidance.faq_saved", _("FAQ entry saved"))
FAQ_DELETED = register("guidance.faq_deleted", _("FAQ entry deleted"))
EXAMPLE_SAVED = register("guidance.example_saved", _("worked example saved"))
EXAMPLE_DELETED = register("guidance.example_deleted", _("worked example deleted"))
GUIDELINES_SAVED = register("guidance.guidelines_saved", _("guidelines changed"))
ITEM_ADJUDICATED = register("review.item_adjudicated", _("split item adjudicated"))
# Keeps whether the item was a reference item and the answers it replaced: what a board
# published before the change read (annotation.selectors.round_history).
REFERENCE_SET = register("review.reference_set", _("reference answers set"))
