"""The rubric editor: rows are edited in place with htmx and autosaved to the editor's
draft; publishing turns the draft into a new immutable version."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from annotation.access import rubric_case_get
from annotation.models import RubricDraft
from annotation.rubric_edit.evidence import evidence_from_token
from annotation.rubric_edit.rows import RubricRow, apply_action, parse_weight_input
from annotation.selectors.rubric_editor import rubric_editor_state
from annotation.selectors.rubrics import open_rounds_freezing
from annotation.services.rubrics import (
    RubricConflict,
    RubricInvalid,
    rubric_comment_add,
    rubric_draft_discard,
    rubric_draft_publish,
    rubric_draft_rebase,
    rubric_draft_save,
)
from core.permissions import Perm


def _open_round_warning(name: str, frozen: int) -> str:
    return _(
        "The open review round %(round)s rates this case on version %(n)d: its experts "
        "and the runs judged for it keep that version, and its gate evaluation does not "
        "vouch for leaderboards judged on newer versions."
    ) % {"round": name, "n": frozen}


def _posted_rows(request: HttpRequest) -> list[RubricRow]:
    post = request.POST
    keys, abilities = post.getlist("key"), post.getlist("ability")
    weights, texts = post.getlist("weight"), post.getlist("text")
    return [
        RubricRow(key=key, ability=ability, weight=parse_weight_input(weight), text=text)
        for key, ability, weight, text in zip(keys, abilities, weights, texts, strict=False)
    ]


# Evidence carries figures about the judge and the experts' agreement: for the roles that
# read the agreement reports, never for the (senior) experts, who work blind.


def _evidence(request: HttpRequest, case, token: str = "") -> tuple[str, str]:
    """The evidence a health link brought for this case (its token and its text), if the
    user may read it."""
    token = token or request.POST.get("evidence") or request.GET.get("evidence", "")
    if not request.user.has_perm(Perm.VIEW_CONSENSUS):
        return "", ""
    text = evidence_from_token(token, case_id=case.pk)
    return (token, text) if text else ("", "")


def rubric_editor_page(
    request: HttpRequest,
    case,
    *,
    template: str,
    status: int = 200,
    evidence_token: str = "",
    **extra,
) -> HttpResponse:
    """The editor of the case, in `template` (this editor's page or a page extending it),
    showing the evidence of `evidence_token` or of the request's own token."""
    state = rubric_editor_state(
        case=case,
        user=request.user,
        rows=extra.pop("rows", None),
        confirm=extra.get("confirm", False),
    )
    warnings = [_open_round_warning(*row) for row in open_rounds_freezing(case=case)]
    token, evidence = _evidence(request, case, evidence_token)
    context = {
        "case": case,
        "state": state,
        "open_round_warnings": warnings,
        "evidence": evidence,
        "evidence_token": token,
    }
    return render(request, template, {**context, **extra}, status=status)


_editor = rubric_editor_page


@login_required
def rubric_editor(request: HttpRequest, slug: str, external_id: str) -> HttpResponse:
    case = rubric_case_get(request.user, slug=slug, external_id=external_id)
    return _editor(request, case, template="annotation/rubric_editor.html")


@login_required
@require_POST
def rubric_draft(request: HttpRequest, slug: str, external_id: str) -> HttpResponse:
    """Autosave (no action: answers with the save status and row messages), or a row
    action (add, remove, move: answers with the re-rendered rows)."""
    case = rubric_case_get(request.user, slug=slug, external_id=external_id, edit=True)
    rows = _posted_rows(request)
    action = request.POST.get("action", "")
    if action:
        rows = apply_action(rows, action)
    rubric_draft_save(case=case, author=request.user, rows=rows)
    template = (
        "annotation/_rubric_form_response.html" if action else "annotation/_rubric_autosaved.html"
    )
    if not request.htmx:
        return redirect("rubric-editor", slug=slug, external_id=external_id)
    return _editor(request, case, template=template)


@login_required
@require_POST
def rubric_publish(request: HttpRequest, slug: str, external_id: str) -> HttpResponse:
    case = rubric_case_get(request.user, slug=slug, external_id=external_id, edit=True)
    rows = _posted_rows(request)
    confirm = request.POST.get("confirm_catastrophic") == "on"
    note = request.POST.get("note", "")
    draft = rubric_draft_save(case=case, author=request.user, rows=rows)
    try:
        version = rubric_draft_publish(
            draft=draft,
            note=note,
            confirm_multiple_catastrophic=confirm,
            evidence=_evidence(request, case)[1],
        )
    except RubricInvalid as exc:
        return _editor(
            request,
            case,
            template="annotation/_rubric_publish_result.html",
            status=422,
            problems=exc.problems,
            note=note,
            confirm=confirm,
        )
    except RubricConflict as exc:
        return _editor(
            request,
            case,
            template="annotation/_rubric_publish_result.html",
            status=409,
            conflict=exc,
            note=note,
            confirm=confirm,
        )
    messages.success(
        request, _("Published version %(n)d of %(case)s.") % {"n": version.number, "case": case}
    )
    for name, frozen in open_rounds_freezing(case=case):
        messages.warning(request, _open_round_warning(name, frozen))
    url = reverse("rubric-history", args=[slug, external_id])
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


def _own_draft(request: HttpRequest, case) -> RubricDraft | None:
    return RubricDraft.objects.filter(case=case, author=request.user).first()


@login_required
@require_POST
def rubric_rebase(request: HttpRequest, slug: str, external_id: str) -> HttpResponse:
    case = rubric_case_get(request.user, slug=slug, external_id=external_id, edit=True)
    draft = _own_draft(request, case)
    if draft is not None:
        rubric_draft_rebase(draft=draft)
        messages.info(
            request,
            _("Your draft now starts from version %(n)d. Check the rows marked as conflicts.")
            % {"n": draft.base_version.number},
        )
    return redirect("rubric-editor", slug=slug, external_id=external_id)


@login_required
@require_POST
def rubric_discard(request: HttpRequest, slug: str, external_id: str) -> HttpResponse:
    case = rubric_case_get(request.user, slug=slug, external_id=external_id, edit=True)
    draft = _own_draft(request, case)
    if draft is not None:
        rubric_draft_discard(draft=draft)
        messages.info(request, _("Your draft was discarded."))
    return redirect("rubric-editor", slug=slug, external_id=external_id)


@login_required
@require_POST
def rubric_comment(request: HttpRequest, slug: str, external_id: str) -> HttpResponse:
    case = rubric_case_get(request.user, slug=slug, external_id=external_id)
    error = ""
    try:
        rubric_comment_add(case=case, author=request.user, text=request.POST.get("text", ""))
    except ValueError as exc:
        error = str(exc)
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect("rubric-editor", slug=slug, external_id=external_id)
    return _editor(
        request,
        case,
        template="annotation/_rubric_comments.html",
        status=422 if error else 200,
        comment_error=error,
    )
