"""Judge configurations and runs over the API, with the same services and permissions as
the pages."""

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.models import Benchmark, ReviewRound, System
from core.permissions import Perm
from judging.endpoints import EndpointRefused, key_variable_check
from judging.forms import CALL_FIELDS, VERSION_FIELDS
from judging.models import JudgeConfig, JudgeRun, JudgeVersion, PromptTemplate
from judging.selectors.runs import run_progress, run_state
from judging.services.judge_versions import (
    CallSettings,
    ConfigInvalid,
    VersionSettings,
    judge_config_save,
)
from judging.services.run_control import (
    RunNotSteerable,
    judge_run_cancel,
    judge_run_pause,
    judge_run_resume,
    judge_run_retry_failed,
)
from judging.services.runs import RunNotStartable, WorkersUnreachable, judge_run_start
from judging.tasks import dispatch_and_watch


class PromptOutput(serializers.ModelSerializer):
    class Meta:
        model = PromptTemplate
        fields = ["id", "name", "version", "kind", "language", "system_text", "user_text"]


class VersionOutput(serializers.ModelSerializer):
    # The prompt's name and version; null for a judge without one (an imported judge).
    prompt = serializers.CharField(read_only=True, allow_null=True)

    class Meta:
        model = JudgeVersion
        fields = [
            "number",
            "source",
            "model",
            "base_url",
            "temperature",
            "seed",
            "max_output_tokens",
            "structured_output",
            "prompt",
            "ensemble",
            "fingerprint",
            "note",
            "created",
        ]


class ConfigOutput(serializers.ModelSerializer):
    current_version = VersionOutput(allow_null=True)
    versions = serializers.SerializerMethodField()

    class Meta:
        model = JudgeConfig
        fields = ["id", "name", *CALL_FIELDS, "current_version", "versions"]

    def get_versions(self, config: JudgeConfig) -> list[int]:
        return sorted(version.number for version in config.versions.all())


class ConfigInput(serializers.Serializer):
    """A configuration and the settings of its current version; changing a verdict setting
    makes a new version (or makes current an earlier one with exactly these settings)."""

    name = serializers.CharField(max_length=100)
    model = serializers.CharField(max_length=200)
    base_url = serializers.URLField(max_length=300, allow_blank=True, default="")
    prompt = serializers.PrimaryKeyRelatedField(
        queryset=PromptTemplate.objects.filter(kind=PromptTemplate.Kind.JUDGE),
        allow_null=True,
        default=None,
    )
    structured_output = serializers.BooleanField(default=True)
    temperature = serializers.FloatField(min_value=0, max_value=2, default=0.0)
    seed = serializers.IntegerField(
        min_value=-(2**31), max_value=2**31 - 1, allow_null=True, default=None
    )
    max_output_tokens = serializers.IntegerField(min_value=1, max_value=2**31 - 1, default=4096)
    api_key_env = serializers.CharField(max_length=100, allow_blank=True, default="")
    timeout_seconds = serializers.FloatField(min_value=0.1, max_value=3600, default=120.0)
    max_concurrency = serializers.IntegerField(min_value=1, max_value=256, default=8)
    requests_per_minute = serializers.IntegerField(min_value=0, max_value=10**6, default=0)
    max_attempts = serializers.IntegerField(min_value=1, max_value=50, default=5)
    backoff_seconds = serializers.FloatField(min_value=0, max_value=600, default=1.0)
    price_prompt_per_1k = serializers.DecimalField(
        max_digits=10, decimal_places=6, min_value=0, default=0
    )
    price_completion_per_1k = serializers.DecimalField(
        max_digits=10, decimal_places=6, min_value=0, default=0
    )
    is_simulated = serializers.BooleanField(default=False)
    note = serializers.CharField(max_length=300, allow_blank=True, default="")
    # {"kind": "self_consistency", "samples": 5} or {"kind": "panel", "members": [ids]}.
    ensemble = serializers.JSONField(allow_null=True, default=None)

    def validate_api_key_env(self, value: str) -> str:
        value = value.strip()
        try:
            key_variable_check(value)
        except EndpointRefused as exc:
            raise serializers.ValidationError(str(exc)) from exc
        return value

    def validate_name(self, value: str) -> str:
        value = value.strip()
        taken = JudgeConfig.objects.filter(name=value)
        if self.instance is not None:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            raise serializers.ValidationError(_("A judge configuration with this name exists."))
        return value

    @staticmethod
    def current(config: JudgeConfig) -> dict:
        """The configuration's values as input, for a partial update."""
        values = {name: getattr(config, name) for name in ["name", *CALL_FIELDS]}
        version = config.current_version
        if version is not None:
            values.update({name: getattr(version, name) for name in VERSION_FIELDS})
            values["ensemble"] = version.ensemble
        return values

    def save_config(self, *, user) -> JudgeConfig:
        data = {**(self.current(self.instance) if self.instance else {}), **self.validated_data}
        try:
            config, _version, _created = judge_config_save(
                name=data["name"],
                settings=VersionSettings(
                    **{name: data[name] for name in VERSION_FIELDS}, ensemble=data["ensemble"]
                ),
                calls=CallSettings(**{name: data[name] for name in CALL_FIELDS}),
                config=self.instance,
                user=user,
                note=data.get("note", ""),
            )
        except ConfigInvalid as exc:
            raise serializers.ValidationError(exc.errors) from exc
        return config


class RunOutput(serializers.ModelSerializer):
    benchmark = serializers.CharField(source="benchmark.slug")
    config = serializers.CharField(source="config.name")
    judge_version = serializers.IntegerField(source="judge_version.number")
    systems = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)
    # The prompt's name and version; null for a judge without one (an imported judge).
    prompt = serializers.CharField(read_only=True, allow_null=True)
    progress = serializers.SerializerMethodField()
    state = serializers.SerializerMethodField(
        help_text="the status, except 'finished_with_failures' for a run that finished with "
        "failed tasks"
    )

    class Meta:
        model = JudgeRun
        fields = [
            "id",
            "benchmark",
            "config",
            "judge_version",
            "systems",
            "prompt",
            "source",
            "status",
            "state",
            "fresh_calls",
            "settings_snapshot",
            "created",
            "finished",
            "progress",
        ]

    def get_state(self, run: JudgeRun) -> str:
        failed = run.tasks.filter(status="failed").count()
        return run_state(run, failed)

    def get_progress(self, run: JudgeRun) -> dict:
        p = run_progress(run=run)
        return {
            "total": p.total,
            "done": p.done,
            "failed": p.failed,
            "running": p.running,
            "pending": p.pending,
            "cancelled": p.cancelled,
            "prompt_tokens": p.prompt_tokens,
            "completion_tokens": p.completion_tokens,
            "per_minute": p.per_minute,
            "eta_seconds": p.eta_seconds,
            "cost": str(p.cost),
        }


class RunInput(serializers.Serializer):
    benchmark = serializers.SlugRelatedField(slug_field="slug", queryset=Benchmark.objects.all())
    systems = serializers.SlugRelatedField(
        slug_field="name", queryset=System.objects.all(), many=True, required=False, default=list
    )
    config = serializers.PrimaryKeyRelatedField(queryset=JudgeConfig.objects.all())
    round = serializers.PrimaryKeyRelatedField(
        queryset=ReviewRound.objects.all(), required=False, allow_null=True, default=None
    )
    fresh_calls = serializers.BooleanField(default=False)
    failed_generations = serializers.BooleanField(
        default=False,
        help_text="Also judge responses that are empty or begin with 'Error' (left out by "
        "default, as HeartBench's scorer skips them).",
    )


class PromptList(generics.ListAPIView):
    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_PROMPTTEMPLATE
    serializer_class = PromptOutput
    queryset = PromptTemplate.objects.all()
    pagination_class = None
    filter_backends: list = []


def _configs():
    return JudgeConfig.objects.select_related("current_version__prompt").prefetch_related(
        "versions"
    )


class ConfigCollection(APIView):
    permission_classes = [HasPermission]
    required_permissions = {"GET": Perm.VIEW_JUDGECONFIG, "POST": Perm.ADD_JUDGECONFIG}

    @extend_schema(responses=ConfigOutput(many=True))
    def get(self, request: Request) -> ApiResponse:
        return ApiResponse(ConfigOutput(_configs(), many=True).data)

    @extend_schema(request=ConfigInput, responses={201: ConfigOutput})
    def post(self, request: Request) -> ApiResponse:
        data = ConfigInput(data=request.data)
        data.is_valid(raise_exception=True)
        config = data.save_config(user=request.user)
        return ApiResponse(ConfigOutput(_configs().get(pk=config.pk)).data, status=201)


class ConfigItem(APIView):
    permission_classes = [HasPermission]
    required_permissions = {
        "GET": Perm.VIEW_JUDGECONFIG,
        "PUT": Perm.CHANGE_JUDGECONFIG,
        "PATCH": Perm.CHANGE_JUDGECONFIG,
    }

    @extend_schema(responses=ConfigOutput)
    def get(self, request: Request, pk: int) -> ApiResponse:
        return ApiResponse(ConfigOutput(get_object_or_404(_configs(), pk=pk)).data)

    def _update(self, request: Request, pk: int, *, partial: bool) -> ApiResponse:
        config = get_object_or_404(JudgeConfig, pk=pk)
        data = ConfigInput(config, data=request.data, partial=partial)
        data.is_valid(raise_exception=True)
        data.save_config(user=request.user)
        return ApiResponse(ConfigOutput(_configs().get(pk=pk)).data)

    @extend_schema(request=ConfigInput, responses=ConfigOutput)
    def put(self, request: Request, pk: int) -> ApiResponse:
        return self._update(request, pk, partial=False)

    @extend_schema(request=ConfigInput, responses=ConfigOutput)
    def patch(self, request: Request, pk: int) -> ApiResponse:
        return self._update(request, pk, partial=True)


class RunCollection(APIView):
    permission_classes = [HasPermission]
    required_permissions = {"GET": Perm.VIEW_JUDGERUN, "POST": Perm.RUN_JUDGE}

    @extend_schema(responses=RunOutput(many=True))
    def get(self, request: Request) -> ApiResponse:
        runs = JudgeRun.objects.select_related(
            "benchmark", "judge_version__config", "judge_version__prompt"
        ).prefetch_related("systems")[:100]
        return ApiResponse(RunOutput(runs, many=True).data)

    @extend_schema(request=RunInput, responses={201: RunOutput})
    def post(self, request: Request) -> ApiResponse:
        data = RunInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            run = judge_run_start(
                benchmark=data.validated_data["benchmark"],
                systems=data.validated_data["systems"],
                config=data.validated_data["config"],
                round_=data.validated_data["round"],
                user=request.user,
                fresh_calls=data.validated_data["fresh_calls"],
                failed_generations=data.validated_data["failed_generations"],
                dispatch=dispatch_and_watch,
            )
        except RunNotStartable as exc:
            down = isinstance(exc, WorkersUnreachable)
            code = status.HTTP_503_SERVICE_UNAVAILABLE if down else status.HTTP_400_BAD_REQUEST
            return ApiResponse({"detail": str(exc)}, status=code)
        run.refresh_from_db()
        return ApiResponse(RunOutput(run).data, status=status.HTTP_201_CREATED)


class RunItem(APIView):
    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_JUDGERUN

    @extend_schema(responses=RunOutput)
    def get(self, request: Request, run_id: int) -> ApiResponse:
        return ApiResponse(RunOutput(get_object_or_404(JudgeRun, pk=run_id)).data)


class RunControl(APIView):
    permission_classes = [HasPermission]
    required_permission = Perm.RUN_JUDGE
    actions = {
        "pause": lambda run, user: judge_run_pause(run=run, user=user),
        "resume": lambda run, user: judge_run_resume(
            run=run, dispatch=dispatch_and_watch, user=user
        ),
        "cancel": lambda run, user: judge_run_cancel(run=run, user=user),
        "retry-failed": lambda run, user: judge_run_retry_failed(
            run=run, dispatch=dispatch_and_watch, user=user
        ),
    }

    @extend_schema(request=None, responses=RunOutput, operation_id="judge_runs_control")
    def post(self, request: Request, run_id: int, action: str) -> ApiResponse:
        run = get_object_or_404(JudgeRun, pk=run_id)
        if action not in self.actions:
            return ApiResponse({"detail": "unknown action"}, status=status.HTTP_404_NOT_FOUND)
        try:
            self.actions[action](run, request.user)
        except WorkersUnreachable as exc:
            return ApiResponse({"detail": str(exc)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        except RunNotSteerable as exc:
            return ApiResponse({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        run.refresh_from_db()
        return ApiResponse(RunOutput(run).data)
