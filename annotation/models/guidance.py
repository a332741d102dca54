"""Guidance for experts beyond the guideline text: a searchable FAQ and worked examples per
ability. Both are written by coordinators in Markdown (shown through annotation/markdown.py);
every change is recorded in the audit log with the text it replaced."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models.benchmarks import Benchmark
from annotation.models.taxonomy import Ability

QUESTION_MAX_LENGTH = 300
TITLE_MAX_LENGTH = 200


class FaqEntry(models.Model):
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="faq_entries")
    question = models.CharField(_("question"), max_length=QUESTION_MAX_LENGTH)
    answer = models.TextField(_("answer"))
    # Criteria reach their FAQ entries through their key (which every version of a criterion
    # keeps) or, for an entry without keys, through their ability.
    abilities = models.ManyToManyField(Ability, blank=True, related_name="+")
    # The criteria it answers, by key (a criterion keeps its key across rubric versions).
    # Empty: every criterion of its abilities.
    criterion_keys = models.JSONField(default=list, blank=True)
    updated = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )

    class Meta:
        ordering = ["pk"]
        verbose_name = _("FAQ entry")
        verbose_name_plural = _("FAQ entries")
        permissions = [("read_guidance", "Can read a benchmark's FAQ and worked examples")]

    def __str__(self) -> str:
        return self.question

    @property
    def anchor(self) -> str:
        """The entry's fragment on the guidelines page: its id, so a link never moves."""
        return f"faq-{self.pk}"


class WorkedExample(models.Model):
    benchmark = models.ForeignKey(
        Benchmark, on_delete=models.CASCADE, related_name="worked_examples"
    )
    ability = models.ForeignKey(Ability, on_delete=models.PROTECT, related_name="+")
    title = models.CharField(_("title"), max_length=TITLE_MAX_LENGTH)
    body = models.TextField(_("worked example"))
    updated = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )

    class Meta:
        ordering = ["pk"]
        verbose_name = _("worked example")
        verbose_name_plural = _("worked examples")

    def __str__(self) -> str:
        return self.title

    @property
    def anchor(self) -> str:
        return f"example-{self.pk}"
