"""Guidance pages: the experts' guidelines page (guideline text, worked examples by ability,
a searchable FAQ), and the coordinator's pages that write the FAQ and the examples."""

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.guidance_forms import FaqEntryForm, WorkedExampleForm
from annotation.models import Benchmark, FaqEntry, WorkedExample
from annotation.selectors.guidance import (
    SEARCH_MAX_LENGTH,
    criterion_refs_of,
    faq_entries,
    guidance_round_get,
    guideline_of,
    worked_examples_by_ability,
)
from annotation.services.guidance import (
    faq_entry_delete,
    faq_entry_save,
    worked_example_delete,
    worked_example_save,
)
from core.permissions import Perm


@permission_needed(Perm.READ_GUIDANCE)
def guidance(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = guidance_round_get(request.user, round_id)
    search = request.GET.get("q", "").strip()[:SEARCH_MAX_LENGTH]
    return render(
        request,
        "annotation/review/guidance.html",
        {
            "round": round_,
            "benchmark": round_.benchmark,
            "guideline": guideline_of(round_.benchmark),
            "example_groups": worked_examples_by_ability(benchmark=round_.benchmark),
            "faq": faq_entries(benchmark=round_.benchmark, search=search),
            "search": search,
        },
    )


def _delete_or_edit(request, model, benchmark):
    """The object a POST's `delete` or `id`, or a GET's `edit`, names within `benchmark`;
    None for a new one; 404 for an id that names nothing of this benchmark."""
    pk = request.POST.get("delete") or request.POST.get("id") or request.GET.get("edit")
    if not pk:
        return None
    if not str(pk).isdigit():
        raise Http404
    return get_object_or_404(model, pk=int(pk), benchmark=benchmark)


@permission_needed(Perm.MANAGE_REVIEW)
def faq_manage(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = get_object_or_404(Benchmark, slug=slug)
    entry = _delete_or_edit(request, FaqEntry, benchmark)
    form = FaqEntryForm(
        initial={
            "question": entry.question,
            "answer": entry.answer,
            "abilities": list(entry.abilities.all()),
            "criteria": "\n".join(
                criterion_refs_of(benchmark=benchmark, keys=entry.criterion_keys)
            ),
        }
        if entry
        else None,
        benchmark=benchmark,
    )
    if request.method == "POST" and request.POST.get("delete"):
        faq_entry_delete(entry=entry, user=request.user)
        messages.success(request, _("FAQ entry deleted."))
        return redirect("review-faq", slug=slug)
    if request.method == "POST":
        form = FaqEntryForm(request.POST, benchmark=benchmark)
        if form.is_valid():
            faq_entry_save(benchmark=benchmark, entry=entry, user=request.user, **form.cleaned_data)
            messages.success(request, _("FAQ entry saved."))
            return redirect("review-faq", slug=slug)
    return render(
        request,
        "annotation/review/faq_manage.html",
        {
            "benchmark": benchmark,
            "entry": entry,
            "form": form,
            "entries": faq_entries(benchmark=benchmark),
        },
        status=400 if form.errors else 200,
    )


@permission_needed(Perm.MANAGE_REVIEW)
def examples_manage(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = get_object_or_404(Benchmark, slug=slug)
    example = _delete_or_edit(request, WorkedExample, benchmark)
    form = WorkedExampleForm(
        initial={"ability": example.ability_id, "title": example.title, "body": example.body}
        if example
        else None
    )
    if request.method == "POST" and request.POST.get("delete"):
        worked_example_delete(example=example, user=request.user)
        messages.success(request, _("Worked example deleted."))
        return redirect("review-examples", slug=slug)
    if request.method == "POST":
        form = WorkedExampleForm(request.POST)
        if form.is_valid():
            worked_example_save(
                benchmark=benchmark, example=example, user=request.user, **form.cleaned_data
            )
            messages.success(request, _("Worked example saved."))
            return redirect("review-examples", slug=slug)
    return render(
        request,
        "annotation/review/examples_manage.html",
        {
            "benchmark": benchmark,
            "example": example,
            "form": form,
            "example_groups": worked_examples_by_ability(benchmark=benchmark),
        },
        status=400 if form.errors else 200,
    )
