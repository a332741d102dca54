from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from annotation.access import rubric_case_get
from annotation.models import RubricVersion
from annotation.rubric_edit.diff import diff_rows
from annotation.selectors.rubric_rows import rows_of_version
from annotation.services.rubrics import RubricConflict, RubricInvalid, rubric_version_restore


def _number(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


@login_required
def rubric_history(request: HttpRequest, slug: str, external_id: str) -> HttpResponse:
    case = rubric_case_get(request.user, slug=slug, external_id=external_id)
    versions = list(case.rubric_versions.select_related("author", "parent").order_by("-number"))
    by_number = {v.number: v for v in versions}
    right = by_number.get(_number(request.GET.get("b")) or (versions[0].number if versions else 0))
    default_left = right.number - 1 if right else 0
    left = by_number.get(_number(request.GET.get("a")) or default_left)
    if (request.GET.get("a") and left is None) or (request.GET.get("b") and right is None):
        raise Http404("No such rubric version")
    entries = diff_rows(rows_of_version(left), rows_of_version(right)) if right else []
    return render(
        request,
        "annotation/rubric_history.html",
        {"case": case, "versions": versions, "left": left, "right": right, "entries": entries},
    )


@login_required
@require_POST
def rubric_restore(request: HttpRequest, slug: str, external_id: str, number: int) -> HttpResponse:
    case = rubric_case_get(request.user, slug=slug, external_id=external_id, edit=True)
    try:
        version = rubric_version_restore(
            case=case, number=number, author=request.user, note=request.POST.get("note", "")
        )
    except RubricVersion.DoesNotExist as exc:
        raise Http404("No such rubric version") from exc
    except (RubricInvalid, RubricConflict) as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            _("Version %(new)d restores version %(old)d.") % {"new": version.number, "old": number},
        )
    return redirect("rubric-history", slug=slug, external_id=external_id)
