from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models import Benchmark, Case, Criterion, Response, RubricVersion, System
from judging.models.anchors import AnchorSet
from judging.models.config import JudgeConfig, PromptTemplate
from judging.models.versions import JudgeVersion


class JudgeRunQuerySet(models.QuerySet):
    def finished(self) -> "JudgeRunQuerySet":
        """Finished judge runs (see `finished_judge_runs`)."""
        return self.filter(finished_judge_runs())

    def of_judge(self, version) -> "JudgeRunQuerySet":
        return self.filter(judge_version=version)

    def newest_first(self) -> "JudgeRunQuerySet":
        return self.order_by(models.F("finished").desc(nulls_last=True), "-pk")


class JudgeRun(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        PAUSED = "paused", _("paused")
        CANCELLED = "cancelled", _("cancelled")
        FINISHED = "finished", _("finished")
        # Stopped by its command (Ctrl-C): nothing is leased, nobody works on it until it
        # is resumed. Unlike a pause, no pool is waiting to pick it up again.
        INTERRUPTED = "interrupted", _("interrupted")

    class Source(models.TextChoices):
        LLM = "llm", _("LLM judge")
        IMPORTED = "imported", _("imported judgments")

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="judge_runs")
    # Every setting that can change a verdict; the run's config and prompt are this version's.
    judge_version = models.ForeignKey(JudgeVersion, on_delete=models.PROTECT, related_name="runs")
    # Every setting the run was started with: the version's and how the calls were made
    # (never the key, only its variable's name). The lanes read it.
    settings_snapshot = models.JSONField(default=dict)
    systems = models.ManyToManyField(System, related_name="judge_runs")

    class Kind(models.TextChoices):
        JUDGE = "judge", _("judge run")
        GENERATION = "generation", _("generation run")

    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.JUDGE)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.LLM)
    # A generation run writes its replies as the responses of this system.
    target_system = models.ForeignKey(
        System, on_delete=models.PROTECT, null=True, blank=True, related_name="generation_runs"
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.RUNNING)
    fresh_calls = models.BooleanField(_("ignore cached answers"), default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True
    )
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
    # Set while the run's lanes wait for an endpoint that stopped answering (see
    # services/outage.py): the run is running, but no call is made except probes.
    endpoint_down_since = models.DateTimeField(null=True, blank=True)
    # The benchmark's anchor set when the run started: the run judged its responses too,
    # mixed among its own tasks in an order drawn from `anchor_seed`.
    anchor_set = models.ForeignKey(
        AnchorSet, on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    anchor_seed = models.BigIntegerField(null=True, blank=True)

    objects = JudgeRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-pk"]
        verbose_name = _("judge run")
        verbose_name_plural = _("judge runs")

    def __str__(self) -> str:
        return f"run {self.pk} ({self.config.name})"

    @property
    def config(self) -> JudgeConfig:
        return self.judge_version.config

    @property
    def prompt(self) -> PromptTemplate | None:
        return self.judge_version.prompt


def finished_judge_runs(prefix: str = "") -> models.Q:
    """The one definition of the runs whose verdicts readings count: finished judge runs
    (not generation runs, not runs still going, paused, interrupted or cancelled). From a
    related model, give the path to the run (`prefix="run__"`)."""
    return models.Q(
        **{f"{prefix}kind": JudgeRun.Kind.JUDGE, f"{prefix}status": JudgeRun.Status.FINISHED}
    )


def requested_tasks(prefix: str = "") -> models.Q:
    """The one definition of the tasks a run was asked for: every task but those added for
    the drift anchors alone (`JudgeTask.requested`), which only the drift test reads. From a
    related model, give the path to the task (`prefix="task__"`)."""
    return models.Q(**{f"{prefix}requested": True})


class JudgeTaskQuerySet(models.QuerySet):
    def requested(self) -> "JudgeTaskQuerySet":
        """The tasks the runs were asked for (see `requested_tasks`)."""
        return self.filter(requested_tasks())


class JudgeTask(models.Model):
    """One call's worth of work: a response judged against one rubric version, or a reply
    to generate for one case. The unique (run, case, system) key is what makes re-running
    after a crash safe."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")
        CANCELLED = "cancelled", _("cancelled")

    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="tasks")
    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="+")
    system = models.ForeignKey(System, on_delete=models.PROTECT, related_name="+")
    # The response judged; for a generation task, the response it wrote (once done).
    response = models.ForeignKey(
        Response, on_delete=models.PROTECT, related_name="judge_tasks", null=True, blank=True
    )
    rubric_version = models.ForeignKey(
        RubricVersion, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    # Attempts made before this count against no retry budget: "retry failed" gives a task
    # a fresh budget while its earlier attempts stay numbered in its log.
    attempts_spent_before = models.PositiveSmallIntegerField(default=0)
    not_before = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    lease_token = models.CharField(max_length=32, blank=True)
    last_error = models.TextField(blank=True)
    request_hash = models.CharField(max_length=64, blank=True, db_index=True)
    cached_from = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reasoning = models.TextField(_("overall reasoning"), blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    finished = models.DateTimeField(null=True, blank=True, db_index=True)
    # The call of attempt `call_number` was sent at `call_started`, its prompt about
    # `call_tokens` tokens: should its lane stop before the answer comes, the lease taken
    # back turns it into an "abandoned" attempt, so the call still counts.
    call_number = models.PositiveSmallIntegerField(default=0)
    call_started = models.DateTimeField(null=True, blank=True)
    call_tokens = models.PositiveIntegerField(default=0)
    # The response is one of the run's anchors (its anchor set's): never answered from the
    # cache, as a reused answer says nothing of the judge today.
    anchor = models.BooleanField(default=False)
    # False for an anchor the run was not asked to judge (another system's response, or
    # one outside its round): its verdicts serve the drift test alone, and the readings of
    # the run's own results (boards, agreement, exports) leave it out.
    requested = models.BooleanField(default=True)

    objects = JudgeTaskQuerySet.as_manager()

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["run", "case", "system"], name="judge_task_unique")
        ]
        indexes = [models.Index(fields=["run", "status"], name="judge_task_run_status")]

    def __str__(self) -> str:
        return f"task {self.pk} of run {self.run_id}"

    @property
    def attempts_counted(self) -> int:
        """Attempts that count against the run's `max_attempts`."""
        return max(0, self.attempts - self.attempts_spent_before)


class JudgeAttempt(models.Model):
    """Every call made for a task, kept whatever happened: raw output, latency, tokens."""

    class Outcome(models.TextChoices):
        OK = "ok", _("ok")
        CACHED = "cached", _("reused from cache")
        INVALID = "invalid", _("invalid reply")
        RATE_LIMITED = "rate_limited", _("rate limited")
        HTTP_ERROR = "http_error", _("HTTP error")
        TIMEOUT = "timeout", _("timeout")
        CONNECTION = "connection", _("connection error")
        # The call was sent, but its lane stopped (a second Ctrl-C, a killed process)
        # before the answer came; its prompt tokens are estimated from the request.
        ABANDONED = "abandoned", _("abandoned")

    task = models.ForeignKey(JudgeTask, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveSmallIntegerField()
    # For an ensemble judge, which member (1..k) made the call; 0 for a single judge.
    member = models.PositiveSmallIntegerField(default=0)
    outcome = models.CharField(max_length=12, choices=Outcome.choices)
    error = models.TextField(blank=True)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    raw_output = models.TextField(blank=True)
    # A reasoning model's thinking, given apart from its answer (the answer is raw_output).
    model_reasoning = models.TextField(blank=True)
    latency_ms = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    # The tokens were estimated from the request: the endpoint processed the call (or may
    # have) without reporting its usage, as when the call timed out.
    tokens_estimated = models.BooleanField(default=False)
    # Which form a valid reply took (judging.replies: Concord's schema or HeartBench's).
    reply_form = models.CharField(max_length=12, blank=True)
    # The model id the provider returned with its answer, and its `system_fingerprint`.
    provider_model = models.CharField(max_length=200, blank=True)
    system_fingerprint = models.CharField(max_length=200, blank=True)
    # host:pid of the process that made the call, to follow a run across workers.
    worker = models.CharField(max_length=100, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["task", "number", "member"]
        constraints = [
            models.UniqueConstraint(
                fields=["task", "number", "member"], name="judge_attempt_member_unique"
            )
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of task {self.task_id}: {self.outcome}"


class Verdict(models.Model):
    task = models.ForeignKey(JudgeTask, on_delete=models.CASCADE, related_name="verdicts")
    criterion = models.ForeignKey(Criterion, on_delete=models.PROTECT, related_name="verdicts")
    hit = models.BooleanField()
    reasoning = models.TextField(blank=True)

    class Meta:
        ordering = ["task", "criterion__position"]
        constraints = [models.UniqueConstraint(fields=["task", "criterion"], name="verdict_unique")]

    def __str__(self) -> str:
        return f"{self.criterion_id}: {'hit' if self.hit else 'miss'}"


class MemberVerdict(models.Model):
    """One ensemble member's verdict on one criterion of a task's response. The task's own
    Verdict is the members' majority; these keep every vote, so the members' disagreement
    per unit can be read back (judging.selectors.ensemble)."""

    task = models.ForeignKey(JudgeTask, on_delete=models.CASCADE, related_name="member_verdicts")
    member = models.PositiveSmallIntegerField()
    criterion = models.ForeignKey(Criterion, on_delete=models.PROTECT, related_name="+")
    hit = models.BooleanField()
    reasoning = models.TextField(blank=True)

    class Meta:
        ordering = ["task", "member", "criterion__position"]
        constraints = [
            models.UniqueConstraint(
                fields=["task", "member", "criterion"], name="member_verdict_unique"
            )
        ]

    def __str__(self) -> str:
        return f"member {self.member}, {self.criterion_id}: {'hit' if self.hit else 'miss'}"


class JudgeLane(models.Model):
    """One of a run's `max_concurrency` slots. A lane holds one while it works, renewing it
    with each task; a slot whose holder died expires and can be taken by a new lane. So
    there are never more lanes, and requests in flight, than the config allows, however
    often lanes are dispatched again."""

    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="lanes")
    number = models.PositiveSmallIntegerField()
    token = models.CharField(max_length=32, blank=True)
    expires = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "number"], name="judge_lane_unique")]

    def __str__(self) -> str:
        return f"lane {self.number} of run {self.run_id}"
