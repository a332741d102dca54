from django.db import models
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _


class BilingualName(models.Model):
    """A label shown in the reader's language where a translation exists."""

    name_en = models.CharField(_("English name"), max_length=200)
    name_zh = models.CharField(_("Chinese name"), max_length=200, blank=True)

    class Meta:
        abstract = True

    @property
    def name(self) -> str:
        if (get_language() or "").startswith("zh") and self.name_zh:
            return self.name_zh
        return self.name_en


class Category(BilingualName):
    UNCATEGORISED = "uncategorised"
    CATASTROPHIC = "catastrophic"

    code = models.SlugField(_("code"), unique=True)
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["position", "code"]
        verbose_name = _("category")
        verbose_name_plural = _("categories")

    def __str__(self) -> str:
        return self.name


class Ability(BilingualName):
    """An ability as labelled in benchmark files (e.g. 言语表达), with its category."""

    label = models.CharField(_("label"), max_length=100, unique=True)
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="abilities")
    is_catastrophic = models.BooleanField(_("catastrophic-failure class"), default=False)
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["category__position", "position", "label"]
        verbose_name = _("ability")
        verbose_name_plural = _("abilities")

    def __str__(self) -> str:
        return self.name
