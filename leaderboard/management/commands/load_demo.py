import csv
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils.translation import gettext_noop

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER
from accounts.services import user_create_with_role
from annotation.models import Assignment, Benchmark, ReviewRound, System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open, round_set_status
from annotation.services.review_votes import VoteInput, assignment_submit
from annotation.services.votes_import import votes_import
from judging.models import JudgeConfig, PromptTemplate
from judging.scoring import Profile
from judging.services.judge_versions import CallSettings, VersionSettings, judge_config_save
from judging.services.judgments_import import judgments_import
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.evidence.selectors.pick import agreement_evidence
from leaderboard.gate.services.evaluation import gate_evaluate, leaderboard_publish
from leaderboard.management.cli import add_json_argument, write_result
from leaderboard.sequential.services import round_decision_check

DEMO_DIR = Path(settings.BASE_DIR) / "fixtures" / "demo"
DEMO_PASSWORD = "concord-demo"
DEMO_USERS = [
    ("coordinator", COORDINATOR),
    ("researcher", RESEARCHER),
    ("expert1", EXPERT),
    ("expert2", EXPERT),
    ("expert3", EXPERT),
]
# `make run` starts the bundled simulator here (see the Procfile).
SIMULATOR_URL = "http://127.0.0.1:8765/v1"
SIMULATOR_CONFIG = "Simulated judge (demo)"
DEMO_ROUND = "Demo round"
# A finished round with votes collected by a panel, and an imported judge that passed the
# gate on it: the demo's published leaderboard and its evidence bundle.
VALIDATION_ROUND = "Demo validation round"
DEMO_JUDGE = "Demo judge (imported)"
# A round over every demo response, set to close itself once the sequential test decides:
# the demo experts rate it (their votes and times are read from a demo file) until it does.
EARLY_STOP_ROUND = "Demo early-stop round"
BENCHMARKS = [
    # Pages show these names in the reader's language (the `translated` filter).
    ("demo", gettext_noop("Concord demo (Chinese)"), "zh"),
    ("demo-en", gettext_noop("Concord demo (English)"), "en"),
]
SYSTEMS = [
    ("model-alpha", "Model Alpha", System.Kind.LLM),
    ("model-beta", "Model Beta", System.Kind.LLM),
    ("human-counsellor", "Human counsellor", System.Kind.HUMAN),
]


class Command(BaseCommand):
    help = "Load the demo benchmarks, systems, responses and users (safe to run again)."

    def add_arguments(self, parser) -> None:
        add_json_argument(parser)

    def handle(self, *args, **options) -> None:
        with transaction.atomic():
            for slug, name, language in BENCHMARKS:
                with (DEMO_DIR / f"questions.{language}.jsonl").open("rb") as chunks:
                    benchmark_import(chunks=chunks, benchmark_slug=slug, benchmark_name=name)
                for file_key, system, kind in SYSTEMS:
                    path = DEMO_DIR / f"answers.{file_key}.{language}.jsonl"
                    with path.open("rb") as chunks:
                        responses_import(
                            chunks=chunks,
                            benchmark_slug=slug,
                            system_name=system,
                            system_kind=kind,
                        )
            for username, role in DEMO_USERS:
                user_create_with_role(username=username, password=DEMO_PASSWORD, role=role)
            self._demo_round()
            if not JudgeConfig.objects.filter(name=SIMULATOR_CONFIG).exists():
                judge_config_save(
                    name=SIMULATOR_CONFIG,
                    settings=VersionSettings(
                        model="concord-sim",
                        base_url=SIMULATOR_URL,
                        prompt=PromptTemplate.objects.get(name="judge-zh", version=1),
                    ),
                    calls=CallSettings(max_concurrency=8, is_simulated=True),
                    note="demo",
                )
            self._published_board()
            self._early_stop_round()
        logins = "\n".join(f"  {username:<12} {role}" for username, role in DEMO_USERS)
        write_result(
            self,
            as_json=options.get("json", False),
            summary={
                "round": DEMO_ROUND,
                "password": DEMO_PASSWORD,
                "users": [{"username": name, "role": role} for name, role in DEMO_USERS],
            },
            text=f"Demo loaded, with the review round {DEMO_ROUND!r}.\n"
            f"Logins (password for all: {DEMO_PASSWORD}):\n{logins}",
        )

    def _demo_round(self) -> None:
        """A blind review round over 30% of the Chinese demo, three raters per item."""
        if ReviewRound.objects.filter(name=DEMO_ROUND).exists():
            return
        experts = list(
            get_user_model().objects.filter(
                username__in=[name for name, role in DEMO_USERS if role == EXPERT]
            )
        )
        round_open(
            benchmark=Benchmark.objects.get(slug="demo"),
            name=DEMO_ROUND,
            systems=list(System.objects.filter(name__in=[name for _, name, _ in SYSTEMS])),
            experts=experts,
            fraction=0.3,
        )

    def _published_board(self) -> None:
        """The validation round's votes and the demo judge's verdicts, read from the demo
        files; the judge's gate evaluation on the round; and its published leaderboard."""
        if ReviewRound.objects.filter(name=VALIDATION_ROUND).exists():
            return
        with (DEMO_DIR / "votes.validation.zh.csv").open("rb") as chunks:
            votes_import(chunks=chunks, round_name=VALIDATION_ROUND, benchmark_slug="demo")
        validation = ReviewRound.objects.get(name=VALIDATION_ROUND)
        round_set_status(round_=validation, status=ReviewRound.Status.CLOSED)
        for file_key, system, _kind in SYSTEMS:
            with (DEMO_DIR / f"judgments.{file_key}.zh.jsonl").open("rb") as chunks:
                judgments_import(
                    chunks=chunks, benchmark_slug="demo", system_name=system, judge_name=DEMO_JUDGE
                )
        benchmark = Benchmark.objects.get(slug="demo")
        coordinator = get_user_model().objects.get(username="coordinator")
        evidence = agreement_evidence(
            benchmark=benchmark, round_ref=VALIDATION_ROUND, judge=DEMO_JUDGE
        )
        gate_evaluate(evidence=evidence, user=coordinator)
        leaderboard_publish(
            board=board_runs(benchmark=benchmark, judge=DEMO_JUDGE),
            profile=Profile.HEARTBENCH,
            user=coordinator,
        )

    def _early_stop_round(self) -> None:
        """The demo experts rate the early-stop round item after item, as the round hands
        them out, with the votes and active times of `votes.early-stop.zh.csv`; after each
        item the sequential test is checked, as it is after each submission, and the round
        closes itself once the test decides. The items never reached stay unrated."""
        if ReviewRound.objects.filter(name=EARLY_STOP_ROUND).exists():
            return
        experts = list(
            get_user_model()
            .objects.filter(username__in=[name for name, role in DEMO_USERS if role == EXPERT])
            .order_by("username")
        )
        round_ = round_open(
            benchmark=Benchmark.objects.get(slug="demo"),
            name=EARLY_STOP_ROUND,
            systems=list(System.objects.filter(name__in=[name for _, name, _ in SYSTEMS])),
            experts=experts,
            fraction=1.0,
            close_when_decided=True,
        )
        votes, seconds = _early_stop_votes()
        while round_.status == ReviewRound.Status.OPEN:
            handed = 0
            for expert in experts:
                assignment = assignment_next(expert=expert, round_=round_)
                if assignment is None:
                    continue
                handed += 1
                response = assignment.item.response
                key = (expert.username, response.case.external_id, response.system.name)
                criteria = assignment.item.rubric_version.criteria.order_by("position")
                assignment_submit(
                    assignment=assignment,
                    votes=[
                        VoteInput(criterion_id=c.pk, hit=votes[key][c.position], note="")
                        for c in criteria
                    ],
                    comment="",
                    active_seconds=0,
                    base_revision=assignment.revision,
                )
                # The demo's recorded times: a loader has no clock running between items.
                Assignment.objects.filter(pk=assignment.pk).update(active_seconds=seconds[key])
            round_decision_check(round_id=round_.pk)
            round_.refresh_from_db()
            if not handed:
                break


def _early_stop_votes() -> tuple[dict, dict]:
    """(votes by (rater, question, system) then criterion position, active seconds by
    (rater, question, system)) from the demo file."""
    votes: dict[tuple, dict[int, bool]] = {}
    seconds: dict[tuple, int] = {}
    with (DEMO_DIR / "votes.early-stop.zh.csv").open(encoding="utf-8", newline="") as rows:
        for row in csv.DictReader(rows):
            key = (row["rater"], row["question_id"], row["system"])
            votes.setdefault(key, {})[int(row["criterion"])] = row["hit"] == "1"
            seconds[key] = int(row["seconds"])
    return votes, seconds
