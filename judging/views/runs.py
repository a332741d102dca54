from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from accounts.access import permission_needed
from core.permissions import Perm
from judging.forms import JudgeConfigForm, JudgeRunForm
from judging.judge_settings import settings_diff
from judging.models import JudgeConfig, JudgeRun, JudgeVersion
from judging.selectors.output_mode import latest_output_probes, run_output_notice
from judging.selectors.runs import (
    endpoint_trouble,
    failed_tasks,
    recent_errors,
    rounds_judged,
    run_progress,
    run_state,
    runs_with_counts,
    state_label,
)
from judging.services.judge_versions import ConfigInvalid, judge_config_save
from judging.services.prompts import language_warning
from judging.services.run_control import (
    judge_run_cancel,
    judge_run_pause,
    judge_run_resume,
    judge_run_retry_failed,
)
from judging.services.runs import RunNotStartable, WorkersUnreachable, judge_run_start
from judging.tasks import dispatch_and_watch


@permission_needed(Perm.VIEW_JUDGERUN)
def run_list(request: HttpRequest) -> HttpResponse:
    runs = runs_with_counts(kind=JudgeRun.Kind.JUDGE)
    configs = JudgeConfig.objects.select_related("current_version__prompt")
    return render(request, "judging/run_list.html", {"runs": runs, "configs": configs})


@permission_needed(Perm.RUN_JUDGE)
def run_new(request: HttpRequest) -> HttpResponse:
    form = JudgeRunForm(request.POST or None, benchmark_id=request.GET.get("benchmark", ""))
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            run = judge_run_start(
                benchmark=form.cleaned_data["benchmark"],
                systems=list(form.cleaned_data["systems"]),
                config=form.cleaned_data["config"],
                round_=form.cleaned_data["round"],
                user=request.user,
                fresh_calls=form.cleaned_data["fresh_calls"],
                failed_generations=form.cleaned_data["failed_generations"],
                dispatch=dispatch_and_watch,
            )
        except RunNotStartable as exc:
            form.add_error(None, str(exc))
            # The request was fine; the service behind it is down.
            status = 503 if isinstance(exc, WorkersUnreachable) else 400
        else:
            messages.success(request, _("Run %(id)d started.") % {"id": run.pk})
            return redirect("judge-run", run_id=run.pk)
    if form.errors and status == 200:
        status = 400
    return render(request, "judging/run_new.html", {"form": form}, status=status)


def _run(run_id: int) -> JudgeRun:
    return get_object_or_404(
        JudgeRun.objects.select_related(
            "benchmark", "judge_version__config", "judge_version__prompt", "created_by"
        ),
        pk=run_id,
    )


@permission_needed(Perm.VIEW_JUDGERUN)
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _run(run_id)
    progress = run_progress(run=run)
    state = run_state(run, progress.failed)
    context = {
        "run": run,
        "progress": progress,
        "state": state,
        "state_label": state_label(state),
        "failed": failed_tasks(run=run),
        "errors": recent_errors(run=run),
        "trouble": endpoint_trouble(run=run),
        "systems": run.systems.all(),
        "output_notice": None if request.htmx else run_output_notice(run=run),
        "language_notice": None
        if request.htmx
        else language_warning(benchmark=run.benchmark, prompt=run.prompt),
        "rounds": [] if request.htmx else rounds_judged(run=run),
    }
    template = "judging/_run_progress.html" if request.htmx else "judging/run_detail.html"
    return render(request, template, context)


@permission_needed(Perm.RUN_JUDGE)
@require_POST
def run_control(request: HttpRequest, run_id: int, action: str) -> HttpResponse:
    run = _run(run_id)
    if action == "pause":
        judge_run_pause(run=run, user=request.user)
    elif action == "resume":
        try:
            judge_run_resume(run=run, dispatch=dispatch_and_watch, user=request.user)
        except RunNotStartable as exc:
            messages.error(request, str(exc))
    elif action == "cancel":
        judge_run_cancel(run=run, user=request.user)
    elif action == "retry-failed":
        try:
            retried = judge_run_retry_failed(
                run=run, dispatch=dispatch_and_watch, user=request.user
            )
        except RunNotStartable as exc:
            messages.error(request, str(exc))
        else:
            messages.success(
                request,
                ngettext(
                    "%(n)d failed response will be judged again.",
                    "%(n)d failed responses will be judged again.",
                    retried,
                )
                % {"n": retried},
            )
    else:
        raise Http404("Unknown action")
    return redirect("judge-run", run_id=run.pk)


@permission_needed(Perm.RUN_JUDGE)
def config_edit(request: HttpRequest, config_id: int | None = None) -> HttpResponse:
    config = get_object_or_404(JudgeConfig, pk=config_id) if config_id else None
    form = JudgeConfigForm(request.POST or None, config=config)
    if request.method == "POST" and form.is_valid():
        try:
            config, version, created = judge_config_save(
                name=form.cleaned_data["name"],
                settings=form.version_settings(),
                calls=form.call_settings(),
                config=config,
                user=request.user,
                note=form.cleaned_data["note"],
            )
        except ConfigInvalid as exc:
            form.hide_refused(exc.errors)
        else:
            if created and version.number > 1:
                message = _("Saved as version %(n)d: runs from now on use it.")
            elif created:
                message = _("Judge configuration saved (version %(n)d).")
            else:
                message = _("Saved; version %(n)d is current.")
            messages.success(request, message % {"n": version.number})
            return redirect("judge-config", config_id=config.pk)
    return render(
        request,
        "judging/config_form.html",
        {"form": form, "config": config},
        status=400 if form.errors else 200,
    )


@permission_needed(Perm.VIEW_JUDGERUN)
def config_detail(request: HttpRequest, config_id: int) -> HttpResponse:
    """A configuration, its versions and the difference between any two of them."""
    config = get_object_or_404(JudgeConfig.objects.select_related("current_version"), pk=config_id)
    versions = list(
        config.versions.select_related("prompt", "author", "parent", "derived_from_round").order_by(
            "-number"
        )
    )
    by_number = {version.number: version for version in versions}

    def picked(name: str, default: int | None) -> JudgeVersion | None:
        value = request.GET.get(name, "")
        return by_number.get(int(value)) if value.isdigit() else by_number.get(default)

    probes = latest_output_probes(version.pk for version in versions)
    for version in versions:
        version.output_probe = probes.get(version.pk)
    current = next(
        (v for v in versions if v.pk == config.current_version_id), config.current_version
    )
    newest = versions[0].number if versions else None
    after = picked("b", newest)
    before = picked("a", after.number - 1 if after and after.number > 1 else None)
    changes = settings_diff(before.settings(), after.settings()) if before and after else None
    return render(
        request,
        "judging/config_detail.html",
        {
            "config": config,
            "versions": versions,
            "current": current,
            "before": before,
            "after": after,
            "changes": changes,
        },
    )
