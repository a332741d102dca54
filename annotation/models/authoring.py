from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models.benchmarks import Case
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
