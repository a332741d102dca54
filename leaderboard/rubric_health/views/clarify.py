"""Drafting a clarification of a criterion the judge misreads: from the rubric health
page, a POST pre-fills the coordinator's draft (nothing is published) and leads to the
rubric editor, which shows beside the dialogue the units where the judge opposes the
experts' majority and the experts' notes, and carries rubric health's evidence token so
that publishing records why the criterion changed."""

from urllib.parse import urlencode

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.rubric_edit.evidence import evidence_token
from annotation.selectors.benchmarks import benchmark_get, case_get
from annotation.services.rubrics import rubric_draft_clarify
from annotation.views.rubric_editor import rubric_editor_page
from core.permissions import Perm
from leaderboard.report.wording import health_evidence_text
from leaderboard.rubric_health.selectors.clarification import NotMisread, clarification_evidence
from leaderboard.rubric_health.selectors.health import JudgeNotFound


def _refused(message: str) -> HttpResponse:
    return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")


# The evidence shows the judge's verdicts: for those who read the agreement reports
# (permission_needed) and may edit rubrics, never for the experts, who work blind.
@permission_needed(Perm.VIEW_CONSENSUS)
def rubric_clarify(request: HttpRequest, slug: str, external_id: str) -> HttpResponse:
    if not request.user.has_perm(Perm.AUTHOR_RUBRIC):
        raise PermissionDenied
    benchmark = benchmark_get(slug=slug)
    case = case_get(benchmark=benchmark, external_id=external_id)
    data = request.POST if request.method == "POST" else request.GET
    judge = data.get("judge", "").strip()
    try:
        criterion = int(data.get("criterion", ""))
    except ValueError:
        return _refused(_("Name the criterion to clarify (its id)."))
    try:
        found = clarification_evidence(
            benchmark=benchmark, case=case, criterion=criterion, judge=judge
        )
    except (NotMisread, JudgeNotFound) as exc:
        return _refused(str(exc))
    query = urlencode({"criterion": criterion, **({"judge": judge} if judge else {})})
    if request.method == "POST":
        try:
            rubric_draft_clarify(case=case, author=request.user, key=found.row.key)
        except KeyError:
            return _refused(
                _(
                    "Your draft of %(case)s no longer has this criterion: publish or discard "
                    "the draft first."
                )
                % {"case": case.external_id}
            )
        return redirect(f"{reverse('rubric-clarify', args=[slug, external_id])}?{query}")
    return rubric_editor_page(
        request,
        case,
        template="leaderboard/rubric_clarify.html",
        evidence_token=evidence_token(health_evidence_text(found.row), case_id=case.pk),
        clarification=found,
    )
