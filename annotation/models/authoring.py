from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models.benchmarks import Benchmark, Case
from annotation.models.rubrics import RubricVersion


class RubricDraft(models.Model):
    """One editor's unpublished work on a case's rubric, saved as they type.

    `rows` holds the editor's criteria as plain data (key, ability label, weight, text);
    they only become a RubricVersion when published.
    """

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="rubric_drafts")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    base_version = models.ForeignKey(RubricVersion, on_delete=models.RESTRICT, related_name="+")
    rows = models.JSONField(default=list)
    # Rows whose own change collided with another editor's during a rebase, by key, with
    # the other editor's wording so the author can decide.
    conflicts = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["case", "author"], name="one_draft_per_editor")
        ]
        verbose_name = _("rubric draft")
        verbose_name_plural = _("rubric drafts")

    def __str__(self) -> str:
        return f"draft of {self.case_id} by {self.author_id}"


class RubricComment(models.Model):
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="rubric_comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    # The version the commenter was looking at, so a remark stays tied to the wording.
    version = models.ForeignKey(
        RubricVersion, on_delete=models.RESTRICT, null=True, blank=True, related_name="comments"
    )
    text = models.TextField(_("comment"))
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "pk"]
        verbose_name = _("rubric comment")
        verbose_name_plural = _("rubric comments")

    def __str__(self) -> str:
        return self.text[:60]


class AuditEvent(models.Model):
    class Action(models.TextChoices):
        RUBRIC_IMPORTED = "rubric.imported", _("rubrics imported")
        RUBRIC_DRAFT_CREATED = "rubric.draft_created", _("rubric draft created")
        RUBRIC_PUBLISHED = "rubric.published", _("rubric version published")
        RUBRIC_RESTORED = "rubric.restored", _("rubric version restored")
        RUBRIC_CONFLICT = "rubric.conflict", _("rubric publish refused (conflict)")
        RUBRIC_REBASED = "rubric.rebased", _("rubric draft rebased")
        INVITATION_CREATED = "people.invited", _("invitation link created")
        INVITATION_USED = "people.invitation_used", _("invitation link used (account made)")
        INVITATION_REVOKED = "people.invitation_revoked", _("invitation link revoked")
        ROLES_CHANGED = "people.roles_changed", _("roles changed")
        ACTIVATED = "people.activated", _("account activated")
        DEACTIVATED = "people.deactivated", _("account deactivated")
        SPECIALITIES_CHANGED = "people.specialities_changed", _("specialities changed")
        RATE_CHANGED = "people.rate_changed", _("piece rate changed")
        RESET_LINK_CREATED = "people.reset_link_created", _("password reset link created")
        PASSWORD_RESET = "people.password_reset", _("password reset with a link")
        ASSIGNMENTS_RELEASED = "people.assignments_released", _("unstarted items released")
        ROUND_OPENED = "review.round_opened", _("review round opened")
        ROUND_PAUSED = "review.round_paused", _("review round paused")
        ROUND_RESUMED = "review.round_resumed", _("review round resumed")
        ROUND_CLOSED = "review.round_closed", _("review round closed")
        ROUND_REOPENED = "review.round_reopened", _("review round reopened")
        ROUND_EXTENDED = "review.round_extended", _("review round extended")
        ROUND_DECIDED = "review.round_decided", _("sequential test decided the round")
        ASSIGNMENT_MOVED = "review.assignment_moved", _("item moved to another expert")
        POOL_EXPERT_ADDED = "review.pool_added", _("expert added to a round's pool")
        POOL_EXPERT_REMOVED = "review.pool_removed", _("expert removed from a round's pool")
        FAQ_SAVED = "guidance.faq_saved", _("FAQ entry saved")
        FAQ_DELETED = "guidance.faq_deleted", _("FAQ entry deleted")
        EXAMPLE_SAVED = "guidance.example_saved", _("worked example saved")
        EXAMPLE_DELETED = "guidance.example_deleted", _("worked example deleted")
        GUIDELINES_SAVED = "guidance.guidelines_saved", _("guidelines changed")
        ITEM_ADJUDICATED = "review.item_adjudicated", _("split item adjudicated")
        JUDGE_CONFIG_CREATED = "judging.config_created", _("judge configuration created")
        JUDGE_CONFIG_CHANGED = "judging.config_changed", _("judge configuration changed")
        RUN_STARTED = "judging.run_started", _("judge run started")
        RUN_PAUSED = "judging.run_paused", _("judge run paused")
        RUN_RESUMED = "judging.run_resumed", _("judge run resumed")
        RUN_CANCELLED = "judging.run_cancelled", _("judge run cancelled")
        GATE_EVALUATED = "leaderboard.gate_evaluated", _("gate evaluated")
        GATE_POLICY_CHANGED = "leaderboard.gate_policy_changed", _("gate policy changed")
        LEADERBOARD_PUBLISHED = "leaderboard.published", _("leaderboard published")

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True
    )
    action = models.CharField(_("action"), max_length=40, choices=Action.choices)
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, null=True, blank=True)
    case = models.ForeignKey(Case, on_delete=models.CASCADE, null=True, blank=True)
    version = models.ForeignKey(
        RubricVersion, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    details = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")

    def __str__(self) -> str:
        return f"{self.action} by {self.actor_id} at {self.created:%Y-%m-%d %H:%M}"
