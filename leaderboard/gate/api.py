"""Gate evaluations and publishing over the API: record an evaluation, list them, publish
a board and list the published ones, with the same services and refusals as the pages and
the commands."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from judging.scoring import Profile
from leaderboard.boards.api import PROFILES
from leaderboard.boards.selectors.runs import BoardNotFound, board_runs, judge_version_header
from leaderboard.corrected.board import RoundNotFound, correcting_round
from leaderboard.drift.selectors import drifted_versions
from leaderboard.evidence.selectors.pick import EvidenceNotFound, agreement_evidence
from leaderboard.gate.selectors.publishing import superseded_boards
from leaderboard.gate.services.evaluation import (
    EvaluationRefused,
    PublishRefused,
    gate_evaluate,
    leaderboard_publish,
)
from leaderboard.models import GateEvaluation, LeaderboardSnapshot
from leaderboard.report.wording_reasons import with_reason_texts


class EvaluationOutput(serializers.ModelSerializer):
    round = serializers.CharField(source="round.name")
    judge_version = serializers.SerializerMethodField()
    evaluated_by = serializers.CharField(source="evaluated_by.get_username", default=None)

    class Meta:
        model = GateEvaluation
        fields = [
            "id",
            "round",
            "run",
            "judge_version",
            "judge_name",
            "threshold",
            "rule",
            "passed",
            "units",
            "agreement",
            "lower_bound",
            "upper_bound",
            "evaluated_by",
            "created",
        ]

    def get_judge_version(self, evaluation: GateEvaluation) -> dict:
        return judge_version_header(evaluation.judge_version)


class SnapshotOutput(serializers.ModelSerializer):
    judge_version = serializers.SerializerMethodField()
    runs = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    published_by = serializers.CharField(source="published_by.get_username")
    # The name of the round whose votes corrected the board, null when none did.
    corrected_by = serializers.CharField(source="corrected_by.name", default=None, allow_null=True)

    class Meta:
        model = LeaderboardSnapshot
        fields = [
            "id",
            "profile",
            "judge_version",
            "judge_name",
            "runs",
            "gate",
            "rubric_changes",
            "corrected_by",
            "rows",
            "published_by",
            "created",
        ]

    def get_judge_version(self, snapshot: LeaderboardSnapshot) -> dict:
        return judge_version_header(snapshot.judge_version)

    def to_representation(self, instance):
        data = super().to_representation(instance)
        data["rows"] = with_reason_texts(data["rows"])
        data["gate"] = with_reason_texts(data["gate"])
        later = self.context.get("superseded", {}).get(instance.pk)
        data["superseded_by"] = later.pk if later is not None else None
        # The drift test flagged the board's judge version on the anchors (run id), if so.
        drift = self.context.get("drifted", {}).get(instance.judge_version_id)
        data["judge_drifted_at_run"] = drift.flagged_run.pk if drift is not None else None
        return data


class GateEvaluationInput(serializers.Serializer):
    round = serializers.CharField(max_length=100)
    run = serializers.CharField(max_length=20, default="latest")
    judge = serializers.CharField(max_length=100, default="", allow_blank=True)


class GateEvaluations(APIView):
    """Recorded gate evaluations of a benchmark (GET), and recording one (POST)."""

    permission_classes = [HasPermission]
    required_permissions = {"GET": Perm.VIEW_CONSENSUS, "POST": Perm.RECORD_GATE}

    @extend_schema(responses=EvaluationOutput(many=True))
    def get(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        evaluations = GateEvaluation.objects.filter(benchmark=benchmark).select_related(
            "round", "judge_version__config", "evaluated_by"
        )[:100]
        return ApiResponse(EvaluationOutput(evaluations, many=True).data)

    @extend_schema(
        request=GateEvaluationInput,
        responses={201: EvaluationOutput, 409: OpenApiResponse(description="refused, with why")},
    )
    def post(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        data = GateEvaluationInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            evidence = agreement_evidence(
                benchmark=benchmark,
                round_ref=data.validated_data["round"],
                run_ref=data.validated_data["run"],
                judge=data.validated_data["judge"],
            )
        except EvidenceNotFound as exc:
            return ApiResponse({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        try:
            evaluation = gate_evaluate(evidence=evidence, user=request.user)
        except EvaluationRefused as exc:
            return ApiResponse(
                {"detail": str(exc), "refusal": exc.code or None}, status=status.HTTP_409_CONFLICT
            )
        return ApiResponse(
            {**EvaluationOutput(evaluation).data, "report": with_reason_texts(evaluation.report)},
            status=status.HTTP_201_CREATED,
        )


class PublishInput(serializers.Serializer):
    judge = serializers.CharField(max_length=100, required=False, default="")
    runs = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        required=False,
        default=list,
        max_length=1000,
    )
    profile = serializers.ChoiceField(choices=PROFILES, default=Profile.HEARTBENCH.value)
    # A review round (name or id) whose votes correct the board; empty: the evaluation's
    # round under a gate policy with a bias condition, else none.
    corrected_by = serializers.CharField(max_length=200, required=False, default="")


class Leaderboards(APIView):
    """Published leaderboards of a benchmark (GET), and publishing one (POST: a judge's
    board or the given runs'; 409 with the reason when the gate policy refuses)."""

    permission_classes = [HasPermission]
    required_permissions = {
        "GET": Perm.VIEW_BENCHMARK,
        "POST": Perm.PUBLISH_LEADERBOARD,
    }

    @extend_schema(responses=SnapshotOutput(many=True))
    def get(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        snapshots = (
            LeaderboardSnapshot.objects.filter(benchmark=benchmark)
            .select_related("judge_version__config", "published_by", "corrected_by")
            .prefetch_related("runs")[:100]
        )
        superseded = superseded_boards(snapshots=snapshots)
        drifted = drifted_versions(
            benchmark=benchmark, version_ids={s.judge_version_id for s in snapshots}
        )
        context = {"superseded": superseded, "drifted": drifted}
        return ApiResponse(SnapshotOutput(snapshots, many=True, context=context).data)

    @extend_schema(
        request=PublishInput,
        responses={201: SnapshotOutput, 409: OpenApiResponse(description="refused, with why")},
    )
    def post(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        data = PublishInput(data=request.data)
        data.is_valid(raise_exception=True)
        ref = data.validated_data["corrected_by"].strip()
        try:
            board = board_runs(
                benchmark=benchmark,
                judge=data.validated_data["judge"],
                runs=data.validated_data["runs"],
            )
            correcting = correcting_round(benchmark=benchmark, ref=ref) if ref else None
        except (BoardNotFound, RoundNotFound) as exc:
            return ApiResponse({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        try:
            snapshot = leaderboard_publish(
                board=board,
                profile=data.validated_data["profile"],
                user=request.user,
                corrected_by=correcting,
            )
        except PublishRefused as exc:
            evaluation = exc.decision.evaluation
            return ApiResponse(
                {
                    "detail": exc.message,
                    "refusal": str(exc.decision.refusal),
                    "evaluation": evaluation.id if evaluation else None,
                },
                status=status.HTTP_409_CONFLICT,
            )
        return ApiResponse(SnapshotOutput(snapshot).data, status=status.HTTP_201_CREATED)
