"""The methods paragraph of the agreement page's evidence, in a field to copy: the same
round, run or judge and minimum raters as the page, in the language and format asked for."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from leaderboard.evidence.selectors.pick import EvidenceNotFound, agreement_evidence
from leaderboard.methods.facts import MethodsUnavailable, methods_facts
from leaderboard.methods.text import methods_text
from leaderboard.methods.writer import FORMATS, LANGUAGES

# The choices offered on the page, worded for people.
LANGUAGE_LABELS = {"en": "English", "zh-hans": "简体中文"}


def _format_labels() -> dict[str, str]:
    return {"md": _("Markdown"), "tex": _("LaTeX")}


def _min_raters(value: str) -> int | None:
    # As the agreement page reads it, so both build the same report.
    return int(value) if value.isdigit() and 1 <= int(value) <= 50 else None


def _language(request: HttpRequest) -> str:
    asked = request.GET.get("lang", "")
    if asked:
        return asked
    return "zh-hans" if (get_language() or "").lower().startswith("zh") else "en"


@permission_needed(Perm.VIEW_CONSENSUS)
def methods_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    lang, fmt = _language(request), request.GET.get("format", "") or "md"
    query = {name: request.GET.get(name, "") for name in ("round", "run", "judge", "min_raters")}
    context = {
        "benchmark": benchmark,
        "query": query,
        "lang": lang,
        "fmt": fmt,
        "languages": LANGUAGE_LABELS,
        "formats": _format_labels(),
    }
    problem = ""
    if lang not in LANGUAGES:
        problem = _(
            "The methods paragraph is written in English or Simplified Chinese, not “%(lang)s”."
        ) % {"lang": lang}
    elif fmt not in FORMATS:
        problem = _("The methods paragraph comes as Markdown or LaTeX, not “%(format)s”.") % {
            "format": fmt
        }
    if problem:
        return render(
            request, "leaderboard/methods.html", {**context, "problem": problem}, status=400
        )
    try:
        evidence = agreement_evidence(
            benchmark=benchmark,
            round_ref=query["round"],
            run_ref=query["run"],
            judge=query["judge"],
            min_raters=_min_raters(query["min_raters"]),
        )
        facts = methods_facts(evidence)
    except EvidenceNotFound as exc:
        raise Http404(str(exc)) from exc
    except MethodsUnavailable as exc:
        return render(request, "leaderboard/methods.html", {**context, "problem": str(exc)})
    context.update(round=evidence.round, text=methods_text(facts, lang=lang, fmt=fmt))
    return render(request, "leaderboard/methods.html", context)
