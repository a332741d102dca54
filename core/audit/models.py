from django.conf import settings
from django.db import models
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from core.audit.registry import ACTION_MAX_LENGTH, action_check, action_label


class AuditEvent(models.Model):
    """One thing a person (or the system, with no actor) did, as it was done.

    The subjects are named by app label, not imported: the ground floor points at what the
    floors above define without depending on their code. The table keeps the name it had when
    the log lived in annotation, so moving the model moved no row.
    """

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True
    )
    # No choices here: apps register their actions (core.audit.register) without a migration.
    action = models.CharField(_("action"), max_length=ACTION_MAX_LENGTH)
    benchmark = models.ForeignKey(
        "annotation.Benchmark", on_delete=models.CASCADE, null=True, blank=True
    )
    case = models.ForeignKey("annotation.Case", on_delete=models.CASCADE, null=True, blank=True)
    version = models.ForeignKey(
        "annotation.RubricVersion",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    details = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        db_table = "annotation_auditevent"
        ordering = ["-created", "-pk"]
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")

    def __str__(self) -> str:
        return f"{self.action} by {self.actor_id} at {self.created:%Y-%m-%d %H:%M}"

    def save(self, *args, **kwargs) -> None:
        # A row whose action no app registered could never be labelled or filtered for.
        self.action = str(action_check(self.action))
        super().save(*args, **kwargs)

    def get_action_display(self) -> str | Promise:
        return action_label(self.action)
