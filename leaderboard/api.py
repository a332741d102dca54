"""The agreement report, leaderboards, gate evaluations and publishing over the API, with
the same selectors, services and refusals as the pages and the commands."""

from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse
from rest_framework.views import APIView

from accounts.access import HasPermission
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from judging.scoring import Profile
from leaderboard.bundles.download import bundle_response
from leaderboard.corrected.board import RoundNotFound, correcting_round
from leaderboard.models import GateEvaluation, LeaderboardSnapshot
from leaderboard.selectors.boards import BoardNotFound, board_runs, judge_version_header
from leaderboard.selectors.drift import drifted_versions, version_drift
from leaderboard.selectors.evidence import (
    EvidenceNotFound,
    agreement_evidence,
    evidence_header,
)
from leaderboard.selectors.publishing import superseded_boards
from leaderboard.services.gate import (
    EvaluationRefused,
    PublishRefused,
    gate_evaluate,
    leaderboard_publish,
)
from leaderboard.services.stored_scores import stored_leaderboard_rows
from leaderboard.wording_reasons import with_reason_texts

PROFILES = [p.value for p in Profile]


def _bad(detail) -> ApiResponse:
    return ApiResponse(detail, status=status.HTTP_400_BAD_REQUEST)


def _judge_version(version) -> dict:
    return judge_version_header(version)


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
        return _judge_version(evaluation.judge_version)


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
        return _judge_version(snapshot.judge_version)

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


class AgreementReport(APIView):
    """The agreement report of a judge run against a review round's majority."""

    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_CONSENSUS

    @extend_schema(
        parameters=[
            OpenApiParameter("round", str, description="id or name; default: the newest"),
            OpenApiParameter(
                "run", str, description="id or 'latest' (the newest run covering the round)"
            ),
            OpenApiParameter(
                "judge", str, description="a judge's name: its current version's finished runs"
            ),
            OpenApiParameter(
                "min_raters",
                int,
                description="leave out units with fewer votes (default: the round's raters "
                "per item)",
            ),
        ],
        responses={200: OpenApiResponse(description="the report (see the README)")},
    )
    def get(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        min_raters = request.query_params.get("min_raters", "")
        if min_raters and not (min_raters.isdigit() and 1 <= int(min_raters) <= 50):
            return _bad({"min_raters": _("A whole number from 1 to 50.")})
        try:
            evidence = agreement_evidence(
                benchmark=benchmark,
                round_ref=request.query_params.get("round", ""),
                run_ref=request.query_params.get("run", ""),
                judge=request.query_params.get("judge", ""),
                min_raters=int(min_raters) if min_raters else None,
            )
        except EvidenceNotFound as exc:
            return _bad({"detail": str(exc)})
        if evidence.report is None:
            return ApiResponse({"detail": evidence.problem}, status=status.HTTP_404_NOT_FOUND)
        return ApiResponse(with_reason_texts({**evidence_header(evidence), **evidence.report}))


def _board_from(request: Request, benchmark, data):
    runs_given = data.getlist("run") if hasattr(data, "getlist") else data.get("runs") or []
    if isinstance(runs_given, (str, int)):
        runs_given = [runs_given]
    if not all(str(value).isdigit() for value in runs_given):
        raise serializers.ValidationError({"runs": [_("Give runs by their ids.")]})
    return board_runs(
        benchmark=benchmark,
        judge=str(data.get("judge", "") or ""),
        runs=[int(value) for value in runs_given],
    )


class Leaderboard(APIView):
    """Scores of a judge version's systems (unpublished), as in the leaderboard command."""

    permission_classes = [HasPermission]
    required_permission = Perm.VIEW_BENCHMARK

    @extend_schema(
        parameters=[
            OpenApiParameter("judge", str, description="configuration name"),
            OpenApiParameter("run", int, many=True, description="run ids (repeatable)"),
            OpenApiParameter("profile", str, enum=PROFILES),
        ],
        responses={200: OpenApiResponse(description="rows as in the leaderboard command")},
    )
    def get(self, request: Request, slug: str) -> ApiResponse:
        benchmark = benchmark_get(slug=slug)
        profile = request.query_params.get("profile", Profile.HEARTBENCH)
        if profile not in PROFILES:
            return _bad({"profile": [_("Use heartbench or heartbench-code.")]})
        try:
            board = _board_from(request, benchmark, request.query_params)
        except BoardNotFound as exc:
            raise Http404(str(exc)) from exc
        return ApiResponse(
            {
                "benchmark": benchmark.slug,
                "runs": board.run_ids,
                "judge_version": _judge_version(board.judge_version)
                if board.judge_version
                else None,
                "profile": profile,
                "systems": with_reason_texts(stored_leaderboard_rows(board=board, profile=profile)),
                # Whether the drift test flagged the judge version on the anchors.
                "drift": version_drift(benchmark=benchmark, version=board.judge_version).as_dict()
                if board.judge_version
                else None,
            }
        )


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
            return _bad({"detail": str(exc)})
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
            return _bad({"detail": str(exc)})
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


class SnapshotBundle(APIView):
    """A published leaderboard's evidence bundle (zip), as the page downloads it."""

    permission_classes = [HasPermission]
    required_permission = Perm.EXPORT_DATA

    @extend_schema(responses={(200, "application/zip"): OpenApiResponse(description="zip file")})
    def get(self, request: Request, slug: str, snapshot_id: int):
        snapshot = LeaderboardSnapshot.objects.filter(pk=snapshot_id, benchmark__slug=slug).first()
        if snapshot is None:
            raise Http404
        return bundle_response(snapshot)
