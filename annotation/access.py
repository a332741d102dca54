"""One access helper per protected object: every view fetches through these."""

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from annotation.models import Case
from core.permissions import Perm


def rubric_case_get(user, *, slug: str, external_id: str, edit: bool = False) -> Case:
    """The case whose rubric `user` may read (authors and commenters) or, with `edit`,
    change (authors only)."""
    allowed = (
        user.has_perm(Perm.AUTHOR_RUBRIC)
        if edit
        else user.has_perm(Perm.AUTHOR_RUBRIC) or user.has_perm(Perm.COMMENT_RUBRIC)
    )
    if not allowed:
        raise PermissionDenied
    return get_object_or_404(
        Case.objects.select_related("benchmark", "scenario"),
        benchmark__slug=slug,
        external_id=external_id,
    )
