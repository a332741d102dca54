"""Starting judge runs (pausing, resuming, cancelling: run_control.py). The work itself is
done by lanes (execution.py)."""

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import Benchmark, Response, ReviewItem, ReviewRound, System
from annotation.selectors.rubrics import latest_version_id_subquery
from config.broker import BrokerUnreachable, broker_check
from core.audit import AuditAction
from core.audit.services import audit_record
from judging import audit_actions, ensemble_vote
from judging.anchor_order import interleave
from judging.endpoints import EndpointRefused, base_url_check, key_variable_check
from judging.llm_client import MissingApiKey, api_key
from judging.models import (
    AnchorSet,
    JudgeConfig,
    JudgeLane,
    JudgeRun,
    JudgeTask,
    JudgeVersion,
    PromptTemplate,
)
from judging.prompt_check import PromptInvalid, decorated_placeholders
from judging.selectors.anchors import anchor_tasks_to_add
from judging.services.ensemble_settings import ensemble_snapshot, panel_members
from judging.services.output_probe import output_mode_decide, output_settings


class RunNotStartable(Exception):
    pass


class WorkersUnreachable(RunNotStartable):
    """The run would be handed to Celery workers, but their broker does not answer."""


def config_snapshot(version: JudgeVersion) -> dict:
    """Every setting a run starts with, for the record and for the lanes: the version's
    (they can change a verdict) and its configuration's (how the calls are made). The key's
    variable name, never the key."""
    config = version.config
    return {
        "name": config.name,
        "judge_version": version.number,
        "fingerprint": version.fingerprint,
        "base_url": version.base_url,
        "model": version.model,
        "temperature": version.temperature,
        "seed": version.seed,
        "max_output_tokens": version.max_output_tokens,
        "structured_output": version.structured_output,
        "prompt": str(version.prompt) if version.prompt else None,
        "api_key_env": config.api_key_env,
        "timeout_seconds": config.timeout_seconds,
        "max_concurrency": config.max_concurrency,
        "requests_per_minute": config.requests_per_minute,
        "max_attempts": config.max_attempts,
        "backoff_seconds": config.backoff_seconds,
        "price_prompt_per_1k": str(config.price_prompt_per_1k),
        "price_completion_per_1k": str(config.price_completion_per_1k),
        "is_simulated": config.is_simulated,
        **ensemble_snapshot(version),
        # Only when there are some: older snapshots stay as they were.
        **({"examples": version.examples} if version.examples else {}),
    }


def _version_of(config: JudgeConfig | None, version: JudgeVersion | None) -> JudgeVersion:
    if version is None and config is not None:
        version = config.current_version
    if version is None:
        raise RunNotStartable(_("This judge configuration has no settings yet."))
    return version


def _lanes_and_dispatch(
    run: JudgeRun, config: JudgeConfig, dispatch: Callable[[JudgeRun], None] | None
) -> None:
    """The run's lane slots, and its hand-over to the workers once the run is committed."""
    JudgeLane.objects.bulk_create(
        JudgeLane(run=run, number=n) for n in range(1, config.max_concurrency + 1)
    )
    if dispatch is not None:
        transaction.on_commit(lambda: dispatch(run))


def workers_reachable(dispatch: Callable | None) -> None:
    # Checked before anything is written: a run whose lanes could not be queued would sit
    # "running" with nobody working on it.
    if dispatch is None:
        return
    try:
        broker_check()
    except BrokerUnreachable as exc:
        raise WorkersUnreachable(str(exc)) from exc


def _endpoint_usable(version: JudgeVersion) -> None:
    """The key can be read and the endpoint may be called, as the lanes will check again
    (for a panel, each member's)."""
    ensemble = version.ensemble or {}
    members = (
        [(m["api_key_env"], m["base_url"]) for m in panel_members(ensemble)]
        if ensemble.get("kind") == ensemble_vote.PANEL
        else [(version.config.api_key_env, version.base_url)]
    )
    try:
        for key_env, base_url in members:
            key_variable_check(key_env)
            base_url_check(base_url)
            api_key(key_env)
    except (EndpointRefused, MissingApiKey) as exc:
        raise RunNotStartable(str(exc)) from exc


def _round_tasks(round_: ReviewRound, systems: Sequence[System]) -> list[tuple]:
    """(response, case, system, rubric version) of the round's items: exactly the rubric
    versions the round froze."""
    items = ReviewItem.objects.filter(round=round_)
    if systems:
        items = items.filter(response__system__in=systems)
    return list(
        items.order_by("response__case__position", "response__system__name").values_list(
            "response_id", "response__case_id", "response__system_id", "rubric_version_id"
        )
    )


def _current_tasks(
    benchmark: Benchmark, systems: Sequence[System], failed_generations: bool
) -> list[tuple]:
    """(response, case, system, rubric version) of every response of the systems, judged
    against its case's current rubric version; failed generations only if asked for."""
    responses = Response.objects.filter(case__benchmark=benchmark, system__in=systems)
    if not failed_generations:
        responses = responses.filter(failed_generation=False)
    return [
        row
        for row in responses.annotate(version_id=latest_version_id_subquery("case"))
        .order_by("case__position", "system__name")
        .values_list("pk", "case_id", "system_id", "version_id")
        if row[3] is not None
    ]


def _prompt_plain(prompt: PromptTemplate) -> None:
    """A template stored before uploads refused format specs would pad or break every
    request: it is refused here, by name, before anything is planned or written."""
    try:
        found = decorated_placeholders(prompt.system_text) + decorated_placeholders(
            prompt.user_text
        )
    except PromptInvalid as exc:
        raise RunNotStartable(str(exc)) from None
    if found:
        raise RunNotStartable(
            _(
                "The prompt %(prompt)s writes %(found)s with a format spec, a conversion or "
                "an index: upload a version that writes each placeholder plainly."
            )
            % {"prompt": str(prompt), "found": ", ".join(found)}
        )


@dataclass(frozen=True)
class RunPlan:
    """What a run would judge: its own tasks, and the benchmark's anchors it lacks."""

    systems: list[System]
    tasks: list[tuple]  # the run's own: (response, case, system, rubric version)
    anchor_set: AnchorSet | None = None
    anchors: list[tuple] = field(default_factory=list)  # anchor tasks added, of the same form
    # Every anchor response the run judges, its own or added: called anew, never reused.
    anchor_responses: frozenset[int] = frozenset()


def judge_run_plan(
    *,
    benchmark: Benchmark,
    systems: Sequence[System],
    version: JudgeVersion,
    round_: ReviewRound | None = None,
    failed_generations: bool = False,
) -> RunPlan:
    """The systems, the (response, case, system, rubric version) of each task a run of
    `version` would have (see `judge_run_start`) and the anchor tasks it would add,
    reading only. Raises RunNotStartable."""
    if version.prompt is None or version.prompt.kind != PromptTemplate.Kind.JUDGE:
        raise RunNotStartable(_("Pick a configuration whose prompt is a judge prompt."))
    _prompt_plain(version.prompt)
    if round_ is not None and round_.benchmark_id != benchmark.pk:
        raise RunNotStartable(_("The review round belongs to another benchmark."))
    if round_ is None and not systems:
        raise RunNotStartable(_("Pick the systems to judge, or a review round."))
    _endpoint_usable(version)
    responses = (
        _round_tasks(round_, systems)
        if round_ is not None
        else _current_tasks(benchmark, systems, failed_generations)
    )
    if not responses:
        raise RunNotStartable(_("These systems have no responses to cases with a rubric."))
    if round_ is not None and not systems:
        systems = list(System.objects.filter(pk__in={row[2] for row in responses}))
    anchor_set, anchors, judged = anchor_tasks_to_add(benchmark=benchmark, planned=responses)
    return RunPlan(list(systems), responses, anchor_set, anchors, frozenset(judged))


def judge_run_start(
    *,
    benchmark: Benchmark,
    systems: Sequence[System],
    config: JudgeConfig | None = None,
    version: JudgeVersion | None = None,
    round_: ReviewRound | None = None,
    user=None,
    fresh_calls: bool = False,
    failed_generations: bool = False,
    dispatch: Callable[[JudgeRun], None] | None = None,
    probe: bool = True,
    anchor_seed: int | None = None,
) -> JudgeRun:
    """Create the run of `version` (by default the configuration's current one) and one
    task per response, then hand it to `dispatch` once committed. Without a round, every
    response of the systems is judged against its case's current rubric version; for a
    round, exactly its items (of those systems, or all), against the rubric versions it
    froze, so the run is evidence for that round whatever was edited since. Failed
    generations (empty, or the generation script's "Error..." text) are left out unless
    `failed_generations`, as HeartBench's scorer skips them.

    When the benchmark has an anchor set, the run also judges the anchor responses it
    lacks (`requested` off: the drift test alone reads them), each on the rubric version
    its round froze, at places drawn from `anchor_seed` (kept on the run; by default drawn
    at random) among its own tasks. Their requests are built like every other: nothing
    tells the judge which responses are anchors.

    Unless the version's endpoint has told already (or `probe` is off, for an estimate),
    one call first asks it whether it takes structured output (services/output_probe.py).

    Raises RunNotStartable, writing nothing, when there is nothing to judge, the key's
    variable is not set or not allowed, the endpoint is refused or (WorkersUnreachable)
    the workers' broker does not answer.
    """
    version = _version_of(config, version)
    plan = judge_run_plan(
        benchmark=benchmark,
        systems=systems,
        version=version,
        round_=round_,
        failed_generations=failed_generations,
    )
    workers_reachable(dispatch)
    # Asked (once per version) before anything is written: the answer decides every call.
    output = output_settings(output_mode_decide(version=version, probe=probe))
    if plan.anchor_set is not None and anchor_seed is None:
        anchor_seed = random.SystemRandom().randrange(2**31)
    with transaction.atomic():
        run = JudgeRun.objects.create(
            benchmark=benchmark,
            judge_version=version,
            settings_snapshot={**config_snapshot(version), **output},
            fresh_calls=fresh_calls,
            created_by=user if getattr(user, "is_authenticated", False) else None,
            anchor_set=plan.anchor_set,
            anchor_seed=anchor_seed if plan.anchor_set is not None else None,
        )
        run.systems.set(plan.systems)
        JudgeTask.objects.bulk_create(
            [
                JudgeTask(
                    run=run,
                    response_id=pk,
                    case_id=c,
                    system_id=s,
                    rubric_version_id=v,
                    anchor=pk in plan.anchor_responses,
                    requested=own,
                )
                for (pk, c, s, v), own in interleave(
                    plan.tasks, plan.anchors, seed=anchor_seed or 0
                )
            ],
            batch_size=2000,
        )
        _lanes_and_dispatch(run, version.config, dispatch)
        run_audit(run, audit_actions.RUN_STARTED, user, **_run_started_details(run, round_))
    return run


def generation_run_start(
    *,
    benchmark: Benchmark,
    system_name: str,
    config: JudgeConfig | None = None,
    version: JudgeVersion | None = None,
    system_kind: str = System.Kind.LLM,
    user=None,
    dispatch: Callable[[JudgeRun], None] | None = None,
) -> JudgeRun:
    """Ask the configured model for its reply to every case the system has not answered
    yet; the replies become the system's responses (HeartBench's "generate answers")."""
    version = _version_of(config, version)
    if version.prompt is None or version.prompt.kind != PromptTemplate.Kind.GENERATION:
        raise RunNotStartable(_("Pick a configuration whose prompt is a generation prompt."))
    if version.ensemble:
        raise RunNotStartable(_("An ensemble judges responses; it does not generate them."))
    _endpoint_usable(version)
    workers_reachable(dispatch)
    system_name = system_name.strip()
    if not system_name:
        raise RunNotStartable(_("Name the system the replies will belong to."))
    with transaction.atomic():
        system, _created = System.objects.get_or_create(
            name=system_name, defaults={"kind": system_kind}
        )
        cases = list(
            benchmark.cases.exclude(responses__system=system)
            .order_by("position")
            .values_list("pk", flat=True)
        )
        if not cases:
            raise RunNotStartable(_("This system already has a response to every case."))
        run = JudgeRun.objects.create(
            benchmark=benchmark,
            judge_version=version,
            kind=JudgeRun.Kind.GENERATION,
            target_system=system,
            settings_snapshot=config_snapshot(version),
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        run.systems.set([system])
        JudgeTask.objects.bulk_create(
            [JudgeTask(run=run, case_id=case_id, system=system) for case_id in cases],
            batch_size=2000,
        )
        _lanes_and_dispatch(run, version.config, dispatch)
        run_audit(run, audit_actions.RUN_STARTED, user, **_run_started_details(run, None))
    return run


def run_audit(run: JudgeRun, action: AuditAction, user, **details) -> None:
    audit_record(
        actor=user, action=action, benchmark=run.benchmark, details={"run": run.pk, **details}
    )


def _run_started_details(run: JudgeRun, round_: ReviewRound | None) -> dict:
    version = run.judge_version
    return {
        "kind": run.kind,
        "judge": f"{version.config.name} v{version.number}",
        "systems": sorted(run.systems.values_list("name", flat=True)),
        "tasks": run.tasks.requested().count(),
        "round": round_.name if round_ is not None else None,
        **(
            {
                "anchor_set": run.anchor_set_id,
                "anchor_tasks": run.tasks.filter(requested=False).count(),
            }
            if run.anchor_set_id
            else {}
        ),
    }


def judge_run_revive(*, run: JudgeRun, dispatch: Callable[[JudgeRun, int], None]) -> int:
    """Dispatch lanes again for a running run whose lanes are gone (a worker was killed, or
    the broker lost their messages). Returns how many lanes were dispatched."""
    if run.status != JudgeRun.Status.RUNNING:
        return 0
    open_tasks = JudgeTask.objects.filter(
        run=run, status__in=[JudgeTask.Status.PENDING, JudgeTask.Status.RUNNING]
    ).exists()
    if not open_tasks:
        return 0
    now = timezone.now()
    idle = (
        JudgeLane.objects.filter(run=run)
        .filter(Q(token="") | Q(expires__isnull=True) | Q(expires__lt=now))
        .count()
    )
    if idle:
        dispatch(run, idle)
    return idle
