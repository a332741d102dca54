import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, no_translations

from core.permissions import Perm
from judging.scoring import Profile
from leaderboard.boards.selectors.runs import BoardNotFound, board_runs
from leaderboard.corrected.board import RoundNotFound, correcting_round
from leaderboard.gate.services.evaluation import PublishRefused, leaderboard_publish
from leaderboard.management.cli import benchmark_named


class Command(BaseCommand):
    help = (
        "Publish a judge's leaderboard, if the gate policy allows it (the same rule as the "
        "page and the API); exits non-zero with the reason when refused."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--judge", default="", help="judge configuration name")
        parser.add_argument("--run", action="append", default=[], dest="runs", type=int)
        parser.add_argument(
            "--profile", choices=[p.value for p in Profile], default=Profile.HEARTBENCH.value
        )
        parser.add_argument(
            "--user", required=True, help="the coordinator publishing (a user name)"
        )
        parser.add_argument(
            "--corrected-by",
            default=None,
            metavar="ROUND",
            help="the review round (name or id) whose votes correct the board; by default the "
            "evaluation's round when the gate policy has a bias condition, else none",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    @no_translations
    def handle(self, *args, **opts) -> None:
        benchmark = benchmark_named(opts["benchmark"])
        user = get_user_model().objects.filter(username=opts["user"], is_active=True).first()
        if user is None or not user.has_perm(Perm.PUBLISH_LEADERBOARD):
            raise CommandError(f"{opts['user']!r} is not a user allowed to publish")
        try:
            board = board_runs(benchmark=benchmark, judge=opts["judge"], runs=opts["runs"])
            correcting = (
                correcting_round(benchmark=benchmark, ref=opts["corrected_by"])
                if opts["corrected_by"]
                else None
            )
            snapshot = leaderboard_publish(
                board=board, profile=opts["profile"], user=user, corrected_by=correcting
            )
        except (BoardNotFound, RoundNotFound) as exc:
            raise CommandError(str(exc)) from exc
        except PublishRefused as exc:
            if opts["json"]:
                refusal = {"published": None, "refusal": str(exc.decision.refusal)}
                self.stdout.write(json.dumps({**refusal, "reason": exc.message}))
            raise CommandError(f"refused: {exc.message}") from exc
        result = {
            "published": snapshot.pk,
            "judge_version": snapshot.judge_version.label,
            "runs": board.run_ids,
            "gate_evaluation": snapshot.gate_id,
            "rubric_changes": snapshot.rubric_changes,
            "corrected_by": snapshot.corrected_by.name if snapshot.corrected_by else None,
        }
        if opts["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
            return
        self.stdout.write(
            f"published leaderboard {snapshot.pk} ({snapshot.judge_version.label}, runs "
            f"{', '.join(map(str, board.run_ids))}), on gate evaluation {snapshot.gate_id}"
        )
