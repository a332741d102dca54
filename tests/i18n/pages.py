"""A site with something on every main page, and the pages to visit: shared by the i18n
tests. Data is the demo benchmark (load_demo) with its review round voted, the judge's
verdicts imported, a gate passed and a leaderboard published."""

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from accounts.roles import SENIOR_EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, Benchmark, Case, ReviewItem, ReviewRound, System
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_extend
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeConfig, JudgeRun, JudgeVersion, PromptTemplate
from judging.services.judgments_import import judgments_import
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.gate.services.evaluation import gate_evaluate, leaderboard_publish
from leaderboard.models import GatePolicy, LeaderboardSnapshot
from tests.conftest import PASSWORD, evidence_of, jsonl_bytes, lines

JUDGE = "评审模型甲"


@dataclass
class Site:
    round_: ReviewRound
    run: JudgeRun
    open_assignment: Assignment
    tied_item: ReviewItem | None
    snapshot: LeaderboardSnapshot


def _vote(expert_index: int, case_position: int, criterion_position: int) -> bool:
    # Deterministic, and different enough between experts to leave some ties and splits.
    return (expert_index * criterion_position + case_position + criterion_position) % 3 != 0


def build_site(coordinator) -> Site:
    call_command("load_demo")
    round_ = ReviewRound.objects.get(name="Demo round")
    experts = list(round_.experts.order_by("username"))
    for index, expert in enumerate(experts):
        while (a := assignment_next(expert=expert, round_=round_)) is not None:
            case = a.item.response.case
            criteria = item_criteria(assignment=a)
            assignment_submit(
                assignment=a,
                votes=[VoteInput(c.pk, _vote(index, case.position, c.position)) for c in criteria],
                comment="",
                active_seconds=30,
                base_revision=0,
            )
    demo = Benchmark.objects.get(slug="demo")
    rows = [
        {
            "question_id": case.external_id,
            "score_detail": [
                (case.position + c.position) % 2
                for c in case.rubric_versions.order_by("-number")[0].criteria.order_by("position")
            ],
            "score_reason": "回应点出了情绪。",
        }
        for case in Case.objects.filter(benchmark=demo)
    ]
    for system in System.objects.filter(responses__case__benchmark=demo).distinct():
        judgments_import(
            chunks=lines(jsonl_bytes(rows)),
            benchmark_slug="demo",
            system_name=system.name,
            judge_name=JUDGE,
        )
    run = JudgeRun.objects.filter(benchmark=demo).order_by("pk").first()
    GatePolicy.objects.create(benchmark=demo, threshold=0.0)
    # The three imports are runs of one judge version: together they cover the round.
    gate_evaluate(evidence=evidence_of(round_), user=coordinator)
    snapshot = leaderboard_publish(
        board=board_runs(benchmark=demo, judge=JUDGE), profile="heartbench", user=coordinator
    )
    # The gate decides on the complete round; then the round grows, and one expert's new
    # item is left unfinished, for the annotation page.
    round_extend(round_=round_, fraction=0.45)
    open_assignment = assignment_next(expert=experts[-1], round_=round_)
    tied = ReviewItem.objects.filter(round=round_).order_by("pk").first()
    return Site(round_, run, open_assignment, tied, snapshot)


def site_users() -> dict:
    users = get_user_model().objects
    return {
        "coordinator": users.get(username="coordinator"),
        "researcher": users.get(username="researcher"),
        "expert": users.get(username="expert3"),
        "senior": user_create_with_role(username="senior", password=PASSWORD, role=SENIOR_EXPERT),
        "nobody": users.create_user(username="nobody", password=PASSWORD),
    }


def main_pages(site: Site) -> list[tuple[str, str | None, str]]:
    """(page name, persona or None for anonymous, URL)."""
    case = ("demo", "demo01")
    run_q = f"?round={site.round_.pk}&run={site.run.pk}"
    config = JudgeConfig.objects.get(name=JUDGE)
    pages = [
        ("home", "nobody", reverse("home")),
        ("login", None, reverse("login")),
        ("benchmark list", "coordinator", reverse("benchmark-list")),
        ("benchmark detail", "coordinator", reverse("benchmark-detail", args=["demo"])),
        ("case detail", "coordinator", reverse("case-detail", args=case)),
        ("rubric editor", "coordinator", reverse("rubric-editor", args=case)),
        ("rubric history", "coordinator", reverse("rubric-history", args=case)),
        ("rubric health by version", "coordinator", reverse("rubric-health-versions", args=case)),
        ("rubric overview", "coordinator", reverse("rubric-overview", args=["demo"])),
        ("audit log", "coordinator", reverse("audit-log")),
        ("import", "coordinator", reverse("import")),
        ("review rounds", "coordinator", reverse("review-rounds")),
        ("review round", "coordinator", reverse("review-round", args=[site.round_.pk])),
        ("new review round", "coordinator", reverse("review-round-new")),
        ("consensus", "coordinator", reverse("review-consensus", args=[site.round_.pk])),
        ("close round", "coordinator", reverse("review-round-close", args=[site.round_.pk])),
        ("guidelines", "coordinator", reverse("review-guidelines", args=["demo"])),
        ("adjudication", "senior", reverse("review-adjudication")),
        ("my work", "expert", reverse("review-my-work")),
        ("my submitted items", "expert", reverse("review-my-submitted", args=[site.round_.pk])),
        (
            "adjudication, every split",
            "senior",
            reverse("review-adjudication") + f"?round={site.round_.pk}&show=splits",
        ),
        (
            "annotate",
            "expert",
            reverse("review-annotate", args=[site.open_assignment.pk]),
        ),
        ("judge runs", "coordinator", reverse("judge-runs")),
        ("new judge run", "coordinator", reverse("judge-run-new")),
        ("judge run", "coordinator", reverse("judge-run", args=[site.run.pk])),
        ("new judge config", "coordinator", reverse("judge-config-new")),
        ("prompt upload", "coordinator", reverse("prompt-upload")),
        ("judge config", "coordinator", reverse("judge-config-edit", args=[config.pk])),
        ("saturated criteria", "coordinator", reverse("rubric-saturated", args=["demo"])),
        ("rubric health", "researcher", reverse("rubric-health", args=["demo"]) + "?all=1"),
        ("agreement", "researcher", reverse("agreement", args=["demo"]) + run_q),
        ("disagreements", "researcher", reverse("disagreements", args=["demo"]) + run_q),
        (
            "judge selection",
            "researcher",
            reverse("judge-selection", args=["demo"]) + f"?round={site.round_.pk}",
        ),
        (
            "disagreement in context",
            "researcher",
            reverse("disagreement-case", args=["demo", site.round_.items.first().response_id])
            + run_q,
        ),
        ("leaderboard", "coordinator", reverse("leaderboard", args=["demo"])),
        (
            "published leaderboard",
            "researcher",
            reverse("leaderboard-snapshot", args=["demo", site.snapshot.pk]),
        ),
        ("exports", "researcher", reverse("exports", args=["demo"]) + run_q),
    ]
    if site.tied_item is not None:
        pages.append(
            ("adjudicate", "coordinator", reverse("review-adjudicate", args=[site.tied_item.pk]))
        )
        pages.append(
            ("references", "coordinator", reverse("review-references", args=[site.tied_item.pk]))
        )
    return pages


# Words that stay as they are in Chinese text: the product, units, established statistical
# names and abbreviations, and technical names a reader types or sees in files.
ALLOWED_WORDS = {
    "Concord", "ms", "HeartBench", "HealthBench", "English", "JavaScript", "token", "Token",
    "Wilson", "McNemar", "Cohen's", "Gwet's", "Fleiss'", "Krippendorff's", "kappa", "alpha",
    "Retry-After", "Markdown",
}  # fmt: skip
ALLOWED_PHRASES = ("JSON Lines",)
# Letters with digits or underscores (AC1, question_id) are codes and identifiers; so are words
# in capitals only (CSV, PABAK, item codes).
WORD = re.compile(r"[A-Za-z][\w'’-]*[\w’']", re.ASCII)


def _is_interface_word(word: str) -> bool:
    return not (
        word in ALLOWED_WORDS or word.isupper() or "_" in word or any(ch.isdigit() for ch in word)
    )


SHOWN_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")


class VisibleText(HTMLParser):
    """Text nodes a reader sees or hears, and the attributes that are read out. Code samples
    (<code>, <kbd>) are what the reader types, the same in every language."""

    SKIPPED = {"script", "style", "template", "code", "kbd"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIPPED:
            self._skipping += 1
        values = dict(attrs)
        for name in SHOWN_ATTRIBUTES:
            if values.get(name):
                self.pieces.append(values[name])
        if tag == "input" and values.get("type") in ("submit", "button") and values.get("value"):
            self.pieces.append(values["value"])

    def handle_endtag(self, tag):
        if tag in self.SKIPPED and self._skipping:
            self._skipping -= 1

    def handle_data(self, data):
        if not self._skipping and data.strip():
            self.pieces.append(data.strip())


def data_strings() -> tuple[list[str], set[str]]:
    """Names that are data, not interface: they stay as their owners wrote them."""
    from annotation.models import Scenario

    names: set[str] = set()
    names.update(get_user_model().objects.values_list("username", flat=True))
    names.update(Benchmark.objects.values_list("name", flat=True))
    names.update(Benchmark.objects.values_list("slug", flat=True))
    names.update(System.objects.values_list("name", flat=True))
    names.update(ReviewRound.objects.values_list("name", flat=True))
    names.update(Case.objects.values_list("external_id", flat=True))
    for config in JudgeConfig.objects.all():
        names.add(config.name)
    for version in JudgeVersion.objects.all():
        names.update({version.model, version.base_url})
    for prompt in PromptTemplate.objects.all():
        names.update({prompt.name, prompt.system_text, prompt.user_text})
    names.update(Scenario.objects.values_list("primary", flat=True))
    names.update(Scenario.objects.values_list("secondary", flat=True))
    # The Chinese demo's content may quote an English word (an "offer", "OK"): data too.
    words: set[str] = set()
    for case in Case.objects.filter(benchmark__slug="demo").prefetch_related("responses"):
        texts = [turn["content"] for turn in case.dialogue]
        texts += [response.text for response in case.responses.all()]
        for version in case.rubric_versions.prefetch_related("criteria"):
            texts += [criterion.text for criterion in version.criteria.all()]
        for text in texts:
            words.update(WORD.findall(text))
    # Longest first, so a name containing another is removed whole.
    return sorted((n for n in names if n), key=len, reverse=True), words


def untranslated_words(html: str, data: tuple[list[str], set[str]]) -> list[str]:
    names, data_words = data
    parser = VisibleText()
    parser.feed(html)
    found = []
    for piece in parser.pieces:
        for name in (*names, *ALLOWED_PHRASES):
            piece = piece.replace(name, " ")
        found += [w for w in WORD.findall(piece) if _is_interface_word(w) and w not in data_words]
    return found
