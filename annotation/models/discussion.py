from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models.review import ReviewItem


class ItemDiscussionPost(models.Model):
    """A message in the thread on an item its raters split on. The thread exists only while
    the item's round is closed (see `item_discussion_get`): while votes are still being
    cast, raters must not learn how the others judged."""

    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="discussion_posts")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField(_("message"))
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "pk"]
        verbose_name = _("discussion post")
        verbose_name_plural = _("discussion posts")
        permissions = [("discuss_item", "Can discuss split items once their round is closed")]

    def __str__(self) -> str:
        return self.text[:60]
