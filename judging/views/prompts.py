"""A prompt template of one's own, uploaded as a file (the page's twin of --prompt-file)."""

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.access import permission_needed
from core.permissions import Perm
from judging.models import PromptTemplate
from judging.services.prompts import PromptInvalid, prompt_template_save, prompt_text_from_upload

MAX_BYTES = 200_000


class PromptUploadForm(forms.Form):
    name = forms.SlugField(
        label=gettext_lazy("Name"),
        max_length=100,
        help_text=gettext_lazy("A new version is made when the words differ from its newest."),
    )
    kind = forms.ChoiceField(
        label=gettext_lazy("Kind"),
        choices=PromptTemplate.Kind.choices,
        initial=PromptTemplate.Kind.JUDGE,
    )
    file = forms.FileField(
        label=gettext_lazy("Prompt file"),
        help_text=gettext_lazy(
            "JSON with the system and the user message (as shown above), or a text file used "
            "as the user message."
        ),
    )


@permission_needed(Perm.RUN_JUDGE)
def prompt_upload(request: HttpRequest) -> HttpResponse:
    form = PromptUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            if upload.size > MAX_BYTES:
                raise PromptInvalid(_("The file is larger than 200 KB."))
            system_text, user_text = prompt_text_from_upload(upload.name, upload.read())
            prompt = prompt_template_save(
                name=form.cleaned_data["name"],
                kind=form.cleaned_data["kind"],
                system_text=system_text,
                user_text=user_text,
                user=request.user,
            )
        except PromptInvalid as exc:
            form.add_error("file", str(exc))
        else:
            messages.success(
                request,
                _("Prompt %(prompt)s is ready: pick it in a judge configuration.")
                % {"prompt": str(prompt)},
            )
            return redirect("judge-config-new")
    status = 400 if form.errors else 200
    return render(request, "judging/prompt_upload.html", {"form": form}, status=status)
