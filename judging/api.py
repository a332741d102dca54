"""Judge configurations and runs over the API, with the same services and permissions as
the pages."""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.models import Benchmark, System
from judging.forms import JudgeConfigForm
from judging.models import JudgeConfig, JudgeRun, PromptTemplate
from judging.selectors.runs import run_progress
from judging.services.runs import (
    RunNotStartable,
    WorkersUnreachable,
    judge_run_cancel,
    judge_run_pause,
    judge_run_resume,
    judge_run_start,
)
from judging.tasks import dispatch_and_watch
from judging.validators import validate_key_variable_name

VIEW = "judging.view_judgerun"
RUN = "judging.run_judge"


class PromptOutput(serializers.ModelSerializer):
    class Meta:
        model = PromptTemplate
        fields = ["id", "name", "version", "kind", "language", "system_text", "user_text"]


class ConfigSerializer(serializers.ModelSerializer):
    class Meta:
        model = JudgeConfig
        fields = ["id", *JudgeConfigForm.Meta.fields]

    def validate_api_key_env(self, value: str) -> str:
        value = value.strip()
        try:
            validate_key_variable_name(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from exc
        return value


class RunOutput(serializers.ModelSerializer):
    benchmark = serializers.CharField(source="benchmark.slug")
    config = serializers.CharField(source="config.name")
    systems = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)
    prompt = serializers.CharField(source="prompt.__str__", default=None, allow_null=True)
    progress = serializers.SerializerMethodField()

    class Meta:
        model = JudgeRun
        fields = [
            "id",
            "benchmark",
            "config",
            "systems",
            "prompt",
            "source",
            "status",
            "fresh_calls",
            "settings_snapshot",
            "created",
            "finished",
            "progress",
        ]

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
        slug_field="name", queryset=System.objects.all(), many=True
    )
    config = serializers.PrimaryKeyRelatedField(queryset=JudgeConfig.objects.all())
    fresh_calls = serializers.BooleanField(default=False)


class PromptList(generics.ListAPIView):
    permission_classes = [HasPermission]
    required_permission = "judging.view_prompttemplate"
    serializer_class = PromptOutput
    queryset = PromptTemplate.objects.all()
    pagination_class = None
    filter_backends: list = []


class ConfigCollection(generics.ListCreateAPIView):
    permission_classes = [HasPermission]
    required_permissions = {"GET": "judging.view_judgeconfig", "POST": "judging.add_judgeconfig"}
    serializer_class = ConfigSerializer
    queryset = JudgeConfig.objects.all()
    pagination_class = None
    filter_backends: list = []


class ConfigItem(generics.RetrieveUpdateAPIView):
    permission_classes = [HasPermission]
    required_permissions = {
        "GET": "judging.view_judgeconfig",
        "PUT": "judging.change_judgeconfig",
        "PATCH": "judging.change_judgeconfig",
    }
    serializer_class = ConfigSerializer
    queryset = JudgeConfig.objects.all()


class RunCollection(APIView):
    permission_classes = [HasPermission]
    required_permissions = {"GET": VIEW, "POST": RUN}

    @extend_schema(responses=RunOutput(many=True))
    def get(self, request: Request) -> ApiResponse:
        runs = JudgeRun.objects.select_related("benchmark", "config", "prompt").prefetch_related(
            "systems"
        )[:100]
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
                user=request.user,
                fresh_calls=data.validated_data["fresh_calls"],
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
    required_permission = VIEW

    @extend_schema(responses=RunOutput)
    def get(self, request: Request, run_id: int) -> ApiResponse:
        return ApiResponse(RunOutput(get_object_or_404(JudgeRun, pk=run_id)).data)


class RunControl(APIView):
    permission_classes = [HasPermission]
    required_permission = RUN
    actions = {
        "pause": lambda run: judge_run_pause(run=run),
        "resume": lambda run: judge_run_resume(run=run, dispatch=dispatch_and_watch),
        "cancel": lambda run: judge_run_cancel(run=run),
    }

    @extend_schema(request=None, responses=RunOutput, operation_id="judge_runs_control")
    def post(self, request: Request, run_id: int, action: str) -> ApiResponse:
        run = get_object_or_404(JudgeRun, pk=run_id)
        if action not in self.actions:
            return ApiResponse({"detail": "unknown action"}, status=status.HTTP_404_NOT_FOUND)
        try:
            self.actions[action](run)
        except WorkersUnreachable as exc:
            return ApiResponse({"detail": str(exc)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        run.refresh_from_db()
        return ApiResponse(RunOutput(run).data)
