"""Import of votes collected outside the app (a CSV file, see importing.votes_csv) into a
review round; a new round is created over exactly the responses the file judges.

One transaction, and the whole file is checked before anything is written: a file with any
error writes nothing, and every error names its line and field.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import NoReturn

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.roles import EXPERT
from annotation.importing.issues import ImportIssue, ImportRejected, IssueCollector
from annotation.importing.votes_csv import RaterVotes, VoteRow, group_votes, read_vote_rows
from annotation.models import (
    Assignment,
    Benchmark,
    Case,
    Criterion,
    Response,
    ReviewItem,
    ReviewRound,
    RubricVersion,
    System,
    Vote,
)
from annotation.review_sampling import hand_out_order
from annotation.selectors.rubrics import latest_version_id_subquery
from annotation.services.rater_pseudonyms import rater_pseudonyms_assign

LOOKUP_CHUNK = 500  # values per `__in` lookup: SQLite limits the parameters of one query


@dataclass
class VotesImportSummary:
    round: str
    created_round: bool = False
    items: int = 0
    assignments: int = 0
    votes: int = 0
    raters_created: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class _Resolved:
    votes: RaterVotes
    response_id: int
    version_id: int


class _VotesImporter:
    def __init__(self, *, name: str, benchmark_slug: str | None, user) -> None:
        self.name = name
        self.benchmark_slug = benchmark_slug
        self.user = user
        self.issues = IssueCollector()
        self.summary = VotesImportSummary(round=name)
        # Locked so that two imports into one round queue instead of both adding revision n.
        self.round = ReviewRound.objects.select_for_update().filter(name=name).first()
        self.items: dict[int, tuple[int, int]] = {}  # response -> (item, frozen version)
        self.latest: dict[int, int] = {}  # case -> current rubric version
        self.criteria: dict[int, list[int]] = defaultdict(list)  # version -> ids by position

    def run(self, items: Iterable[VoteRow | ImportIssue]) -> VotesImportSummary:
        # Rows are held in memory: a new round's items and rater count depend on the whole
        # file, and a votes file is small next to the benchmark it judges.
        rows: list[VoteRow] = []
        for item in items:
            if isinstance(item, ImportIssue):
                self.issues.add(item.line, item.message, item.field)
            else:
                rows.append(item)
        if not rows:
            self.issues.raise_if_any()
            raise ImportRejected([ImportIssue(0, "the file contains no votes")])
        groups, duplicates = group_votes(rows)
        for issue in duplicates:
            self.issues.add(issue.line, issue.message, issue.field)
        benchmark = self.benchmark({row.question_id for row in rows})
        self.load(benchmark, {row.system for row in rows})
        resolved = [r for r in (self.resolve(group) for group in groups) if r is not None]
        # A row rejected above would be reported again as a missing criterion: check that
        # each rater's votes are complete only once every row is known to be good.
        if not self.issues.count:
            for r in resolved:
                missing = r.votes.missing(len(self.criteria[r.version_id]))
                if missing:
                    self.issues.add(
                        r.votes.line,
                        f"rater {r.votes.rater!r} has no vote on criterion "
                        f"{', '.join(map(str, missing))} of {r.votes.label}: every criterion "
                        "of its rubric needs one",
                        "criterion",
                    )
        users = self.existing_raters(groups)
        self.issues.raise_if_any()
        self.write(benchmark, users, resolved)
        return self.summary

    def reject(self, message: str) -> NoReturn:
        """Stop at a file-wide problem, listing it with the row problems found so far."""
        self.issues.add(0, message)
        self.issues.raise_if_any()
        raise AssertionError("unreachable")

    def benchmark(self, qids: set[str]) -> Benchmark:
        given = self.benchmark_slug
        if self.round is not None:
            slug = self.round.benchmark.slug
            if self.round.status == ReviewRound.Status.CLOSED:
                self.reject(f"round {self.name!r} is closed; its votes can no longer change")
            if given and given != slug:
                self.reject(f"round {self.name!r} is of benchmark {slug!r}, not {given!r}")
            return self.round.benchmark
        if given:
            benchmark = Benchmark.objects.filter(slug=given).first()
            if benchmark is None:
                self.reject(f"no benchmark with slug {given!r}")
            return benchmark
        ordered = sorted(qids)
        found: dict[int, set[str]] = defaultdict(set)
        for start in range(0, len(ordered), LOOKUP_CHUNK):
            for benchmark_id, qid in Case.objects.filter(
                external_id__in=ordered[start : start + LOOKUP_CHUNK]
            ).values_list("benchmark_id", "external_id"):
                found[benchmark_id].add(qid)
        # The only benchmark holding any of the ids is the one meant: the ids it lacks are
        # then reported line by line as unknown.
        chosen = list(found) if len(found) == 1 else [k for k, v in found.items() if v == qids]
        if len(chosen) == 1:
            return Benchmark.objects.get(pk=chosen[0])
        if not found:
            self.reject("no benchmark has a case with any question_id of the file")
        slugs = sorted(Benchmark.objects.filter(pk__in=found).values_list("slug", flat=True))
        self.reject(
            f"the question_ids are cases of several benchmarks ({', '.join(slugs)}); "
            "name the benchmark (--benchmark)"
        )

    def load(self, benchmark: Benchmark, system_names: set[str]) -> None:
        self.slug = benchmark.slug
        self.cases = dict(Case.objects.filter(benchmark=benchmark).values_list("external_id", "pk"))
        self.systems = dict(System.objects.filter(name__in=system_names).values_list("name", "pk"))
        self.responses = {
            (case_id, system_id): pk
            for pk, case_id, system_id in Response.objects.filter(
                case__benchmark=benchmark, system_id__in=self.systems.values()
            ).values_list("pk", "case_id", "system_id")
        }
        if self.round is not None:
            items = ReviewItem.objects.filter(round=self.round)
            for pk, response_id, version_id in items.values_list(
                "pk", "response_id", "rubric_version_id"
            ):
                self.items[response_id] = (pk, version_id)
            versions = items.values("rubric_version_id")
        else:
            latest = RubricVersion.objects.filter(
                case__benchmark=benchmark, pk=latest_version_id_subquery("case")
            )
            self.latest = dict(latest.values_list("case_id", "pk"))
            versions = latest.values("pk")
        for version_id, pk in (
            Criterion.objects.filter(rubric_version__in=versions)
            .order_by("rubric_version_id", "position")
            .values_list("rubric_version_id", "pk")
        ):
            self.criteria[version_id].append(pk)

    def resolve(self, votes: RaterVotes) -> _Resolved | None:
        """The response and the rubric version a rater's votes are about; issues are named
        by the first line of those votes, and by each line voting on a criterion that the
        rubric does not have."""
        line, qid, system = votes.line, votes.question_id, votes.system
        case_id, system_id = self.cases.get(qid), self.systems.get(system)
        if case_id is None:
            self.issues.add(
                line,
                f"unknown question_id {qid!r}: benchmark {self.slug!r} has no such case",
                "question_id",
            )
        if system_id is None:
            self.issues.add(line, f"unknown system {system!r}", "system")
        if case_id is None or system_id is None:
            return None
        response_id = self.responses.get((case_id, system_id))
        if response_id is None:
            self.issues.add(line, f"system {system!r} has no response to {qid!r}", "system")
            return None
        if self.round is not None:
            item = self.items.get(response_id)
            if item is None:
                self.issues.add(line, f"{votes.label} is not an item of round {self.name!r}")
                return None
            version_id, which = item[1], "the round's"
        else:
            version_id, which = self.latest.get(case_id), "the current"
            if version_id is None:
                self.issues.add(line, f"case {qid!r} has no rubric to judge", "question_id")
                return None
        size = len(self.criteria[version_id])
        for position, row in votes.rows.items():
            if position > size:
                self.issues.add(
                    row.line,
                    f"criterion {position} is out of range: {which} rubric of {qid!r} has "
                    f"{size} criteria",
                    "criterion",
                )
        return _Resolved(votes, response_id, version_id)

    def existing_raters(self, groups: list[RaterVotes]) -> dict:
        """The raters who are users already, by username; checks the others' usernames."""
        first_lines: dict[str, int] = {}
        for group in groups:
            first_lines.setdefault(group.rater, group.line)
        user_model = get_user_model()
        users = {u.username: u for u in user_model.objects.filter(username__in=list(first_lines))}
        for name in sorted(set(first_lines) - set(users)):
            try:
                user_model._meta.get_field("username").run_validators(name)
            except ValidationError as exc:
                self.issues.add(
                    first_lines[name],
                    f"rater {name!r} is not a valid username: {' '.join(exc.messages)}",
                    "rater",
                )
        return users

    def write(self, benchmark: Benchmark, users: dict, resolved: list[_Resolved]) -> None:
        group = Group.objects.get(name=EXPERT)
        for name in sorted({r.votes.rater for r in resolved} - set(users)):
            # No password: an imported rater signs in only once someone sets one.
            users[name] = get_user_model().objects.create_user(username=name, password=None)
            users[name].groups.set([group])
            self.summary.raters_created.append(name)
        if self.round is None:
            self.create_round(benchmark, resolved)
            self.round.experts.set(users.values())
        else:
            self.round.experts.add(*users.values())
        rater_pseudonyms_assign(
            benchmark_id=benchmark.pk, user_ids=[user.pk for user in users.values()]
        )
        self.summary.items = len({r.response_id for r in resolved})
        self.write_votes(users, resolved)

    def create_round(self, benchmark: Benchmark, resolved: list[_Resolved]) -> None:
        raters: dict[int, int] = defaultdict(int)  # response -> raters in the file
        for r in resolved:
            raters[r.response_id] += 1
        systems = {system for (_, system), pk in self.responses.items() if pk in raters}
        total = Response.objects.filter(case__benchmark=benchmark, system_id__in=systems).count()
        self.round = ReviewRound.objects.create(
            benchmark=benchmark,
            name=self.name,
            fraction=len(raters) / total,  # informational: someone else chose the items
            raters_per_item=max(raters.values()),
            created_by=self.user if getattr(self.user, "is_authenticated", False) else None,
        )
        self.round.systems.set(systems)
        versions = {r.response_id: r.version_id for r in resolved}
        ranks = hand_out_order(versions, seed=self.round.seed)
        created = ReviewItem.objects.bulk_create(
            ReviewItem(
                round=self.round,
                response_id=pk,
                rubric_version_id=versions[pk],
                hand_out_rank=ranks[pk],
            )
            for pk in sorted(versions)
        )
        self.items = {item.response_id: (item.pk, item.rubric_version_id) for item in created}
        self.summary.created_round = True

    def write_votes(self, users: dict, resolved: list[_Resolved]) -> None:
        now = timezone.now()
        existing = {
            (a.item_id, a.expert_id): a
            for a in Assignment.objects.select_for_update().filter(
                item__round=self.round, expert__in=list(users.values())
            )
        }
        done: list[tuple[Assignment, _Resolved]] = []
        added: dict[int, int] = defaultdict(int)  # item -> new assignments
        for r in resolved:
            item_id, expert = self.items[r.response_id][0], users[r.votes.rater]
            assignment = existing.get((item_id, expert.pk))
            if assignment is None:
                assignment = Assignment(item_id=item_id, expert=expert, revision=0)
                added[item_id] += 1
            # The next revision: an earlier submission stays, in its own Vote rows.
            assignment.revision += 1
            assignment.status = Assignment.Status.SUBMITTED
            assignment.started = assignment.started or now
            assignment.submitted = now
            assignment.draft = {}
            done.append((assignment, r))
        Assignment.objects.bulk_create([a for a, _ in done if a.pk is None])
        Assignment.objects.bulk_update(
            [a for a, _ in done if (a.item_id, a.expert_id) in existing],
            ["revision", "status", "started", "submitted", "draft"],
        )
        # Only new assignments count: one the expert already held was counted when given.
        for item_id, count in added.items():
            ReviewItem.objects.filter(pk=item_id).update(assigned_count=F("assigned_count") + count)
        votes = Vote.objects.bulk_create(
            (
                Vote(
                    assignment=assignment,
                    criterion_id=self.criteria[r.version_id][position - 1],
                    revision=assignment.revision,
                    hit=row.hit,
                    note=row.note.strip(),
                )
                for assignment, r in done
                for position, row in sorted(r.votes.rows.items())
            ),
            batch_size=2000,
        )
        self.summary.assignments, self.summary.votes = len(done), len(votes)
        over = ReviewItem.objects.filter(
            round=self.round, assigned_count__gt=self.round.raters_per_item
        ).count()
        if over:
            self.summary.warnings.append(
                f"{over} items have more raters than the round's "
                f"{self.round.raters_per_item} raters per item"
            )


def votes_import(
    *,
    chunks: Iterable[bytes],
    round_name: str,
    benchmark_slug: str | None = None,
    user=None,
) -> VotesImportSummary:
    """Load votes collected outside the app into the round named `round_name`.

    A new round is created over exactly the file's responses, each item frozen at its
    case's current rubric version, with the file's raters as its pool (raters who are not
    users become experts without a password). Each rater's votes on an item become one
    submitted revision. Raises ImportRejected, every problem located by line and field,
    and leaves the database exactly as it was when the file has any error.
    """
    return votes_import_rows(
        rows=read_vote_rows(chunks),
        round_name=round_name,
        benchmark_slug=benchmark_slug,
        user=user,
    )


def votes_import_rows(
    *,
    rows: Iterable[VoteRow | ImportIssue],
    round_name: str,
    benchmark_slug: str | None = None,
    user=None,
) -> VotesImportSummary:
    """`votes_import` of votes read from another format: each vote row, or the issue that
    makes a row of the file unusable, located by its line."""
    name = round_name.strip()
    if not name:
        raise ImportRejected([ImportIssue(0, "the round name must not be empty")])
    limit = ReviewRound._meta.get_field("name").max_length
    if len(name) > limit:
        raise ImportRejected([ImportIssue(0, f"the round name is longer than {limit} characters")])
    with transaction.atomic():
        return _VotesImporter(name=name, benchmark_slug=benchmark_slug, user=user).run(rows)
