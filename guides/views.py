from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language

from accounts.backends import role_names
from guides.library import DOCUMENTS, document_text, guide_for_roles, help_href


@login_required
def help_home(request: HttpRequest) -> HttpResponse:
    guide = guide_for_roles(set(role_names(request.user)))
    if guide is not None:
        return redirect("help-page", guide)
    return render(request, "guides/index.html", {"documents": DOCUMENTS.values()})


@login_required
def help_page(request: HttpRequest, name: str) -> HttpResponse:
    document = DOCUMENTS.get(name)
    if document is None:
        raise Http404
    from annotation.markdown import render_document  # the parser loads with the first guide

    text = document_text(document, get_language())
    html = render_document(text.markdown, lambda href: help_href(document, href))
    context = {"document": document, "html": html, "translated": text.translated,
               "documents": DOCUMENTS.values()}  # fmt: skip
    return render(request, "guides/page.html", context)
