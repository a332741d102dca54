"""The thread on a split item of a closed round: its raters and the coordinators only."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from accounts.access import permission_needed
from annotation.models import VotesSeen
from annotation.selectors.item_discussion import discussion_posts, item_discussion_get
from annotation.services.item_discussion import (
    POST_MAX_LENGTH,
    DiscussionPostInvalid,
    DiscussionUnavailable,
    discussion_post_create,
)
from annotation.services.votes_seen import item_votes_seen_record
from core.permissions import Perm


@permission_needed(Perm.DISCUSS_ITEM)
def item_discussion(request: HttpRequest, item_id: int) -> HttpResponse:
    discussion = item_discussion_get(request.user, item_id)
    # The thread shows how the raters split: the reader's own votes on it are frozen, and
    # the response is never handed to them to rate again.
    item_votes_seen_record(item=discussion.item, user=request.user, via=VotesSeen.Via.DISCUSSION)
    error, text = "", ""
    if request.method == "POST":
        text = request.POST.get("text", "")
        try:
            post = discussion_post_create(item=discussion.item, author=request.user, text=text)
        except DiscussionUnavailable:
            raise Http404 from None
        except DiscussionPostInvalid as exc:
            error = str(exc)
        else:
            url = reverse("review-discussion", args=[discussion.item.pk])
            return redirect(f"{url}#post-{post.pk}")
    case = discussion.item.response.case
    return render(
        request,
        "annotation/review/discussion.html",
        {
            "discussion": discussion,
            "item": discussion.item,
            "case": case,
            "dialogue": case.dialogue,
            "posts": discussion_posts(item=discussion.item, reader=request.user),
            "error": error,
            "text": text,
            "post_limit": POST_MAX_LENGTH,
        },
        status=400 if error else 200,
    )
