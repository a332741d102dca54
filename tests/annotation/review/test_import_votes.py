"""Votes collected outside the app, imported from CSV into a review round."""

import json
from collections import defaultdict

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from accounts.roles import EXPERT
from annotation.importing.issues import ImportIssue, ImportRejected
from annotation.importing.votes_csv import VoteRow, read_vote_rows
from annotation.models import Assignment, ReviewItem, ReviewRound, RubricVersion, Vote
from annotation.selectors.review import current_votes, item_criteria, round_consensus
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_votes import VoteInput, assignment_submit
from annotation.services.votes_import import votes_import
from tests.conftest import jsonl_bytes, lines, question, table_counts

HEADER = "rater,question_id,system,criterion,hit,note"
RATERS = ("ann", "bob", "cat")
ITEMS = (("c01", "SecretAlpha-7b"), ("c02", "SecretBeta-70b"))
# c01's rubric is re-published with three criteria before the import: its votes judge
# version 2, c02's judge the four criteria of version 1.
C01_V2 = [
    {"dimension": "情绪感知", "score": 3, "content": "指出用户的疲惫和压力感"},
    {"dimension": "好奇心", "score": 4, "content": "询问加班从什么时候开始"},
    {"dimension": "其他", "score": None, "content": "没有回应用户，而是以用户的身份说话"},
]
SIZES = {"c01": 3, "c02": 4}


def hit_of(rater: int, item: int, criterion: int) -> int:
    return (rater * criterion + item) % 2


def file_rows() -> list[str]:
    """Every rater on every item; row i of the list is line i + 2 of the file."""
    return [
        f"{rater},{qid},{system},{criterion},{hit_of(r, i, criterion)},理由 {criterion}"
        for r, rater in enumerate(RATERS)
        for i, (qid, system) in enumerate(ITEMS)
        for criterion in range(1, SIZES[qid] + 1)
    ]


def csv_bytes(rows: list, header: str = HEADER) -> bytes:
    encoded = [row if isinstance(row, bytes) else row.encode("utf-8") for row in [header, *rows]]
    return b"\n".join(encoded) + b"\n"


def run(data: bytes, **kwargs):
    return votes_import(chunks=lines(data), **{"round_name": "外部评审", **kwargs})


@pytest.fixture
def votes_data(review_data):
    benchmark_import(
        chunks=lines(jsonl_bytes([question("c01", rubric=C01_V2)])), benchmark_slug="hb"
    )
    return review_data


def rejected(data: bytes, **kwargs) -> str:
    before = table_counts()
    with pytest.raises(ImportRejected) as caught:
        run(data, **kwargs)
    assert table_counts() == before  # nothing written
    return str(caught.value)


def test_the_parser_reads_rows_and_locates_problems():
    data = "\ufeff" + HEADER + '\nann,c01,M,2,1,"两行\n说明"\n\nbob,c01,M,0,x\n'
    items = list(read_vote_rows(lines(data.encode("utf-8"))))
    assert items[0] == VoteRow(2, "ann", "c01", "M", 2, True, "两行\n说明")
    assert [str(i) for i in items[1:]] == [
        "line 5, field 'criterion': must be a positive integer (the criterion's position), got '0'",
        "line 5, field 'hit': must be 0 or 1, got 'x'",
    ]
    assert next(read_vote_rows([b"ann,c01,M,1,1\n"])) == ImportIssue(
        1, "unknown column 'ann'", "header"
    )


@pytest.mark.django_db
def test_a_new_round_is_created_over_the_files_responses(votes_data, experts):
    benchmark, _ = votes_data
    rows = [row.replace("cat,", "exp1,", 1) for row in file_rows()]  # exp1 is a user already
    summary = run(csv_bytes(rows), benchmark_slug="hb")
    assert summary.as_dict() == {
        "round": "外部评审",
        "created_round": True,
        "items": 2,
        "assignments": 6,
        "votes": 3 * (3 + 4),
        "raters_created": ["ann", "bob"],
        "warnings": [],
    }
    round_ = ReviewRound.objects.get(name="外部评审")
    assert round_.benchmark == benchmark and round_.raters_per_item == 3
    assert round_.fraction == pytest.approx(2 / 20)  # two of the two systems' 20 responses
    assert sorted(s.name for s in round_.systems.all()) == sorted(s for _, s in ITEMS)
    assert sorted(u.username for u in round_.experts.all()) == ["ann", "bob", "exp1"]
    items = {
        item.response.case.external_id: item
        for item in ReviewItem.objects.filter(round=round_).select_related("response__case")
    }
    for qid, item in items.items():
        current = RubricVersion.objects.filter(case__external_id=qid).latest()
        assert item.rubric_version == current and item.assigned_count == 3
    assert items["c01"].rubric_version.number == 2
    assert set(Assignment.objects.values_list("status", "revision")) == {("submitted", 1)}
    ann = get_user_model().objects.get(username="ann")
    assert not ann.has_usable_password()
    assert list(ann.groups.values_list("name", flat=True)) == [EXPERT]

    expected: dict[tuple[str, int], list[int]] = defaultdict(list)
    for r in range(3):
        for i, (qid, _) in enumerate(ITEMS):
            for criterion in range(1, SIZES[qid] + 1):
                expected[(qid, criterion)].append(hit_of(r, i, criterion))
    consensus = round_consensus(round_=round_)
    assert len(consensus) == 7
    for (qid, position), hits in expected.items():
        criterion = items[qid].rubric_version.criteria.get(position=position)
        unit = consensus[(items[qid].pk, criterion.pk)]
        assert (unit.votes, unit.label) == (3, sum(hits) >= 2)
    assert Vote.objects.filter(note="理由 2").count() == 6


@pytest.mark.django_db
def test_votes_are_added_to_an_existing_round_keeping_history(review_round, experts):
    exp1, exp4 = experts[0], experts[3]
    assignment = assignment_next(expert=exp1, round_=review_round)
    criteria = item_criteria(assignment=assignment)
    assignment_submit(
        assignment=assignment,
        votes=[VoteInput(c.pk, True) for c in criteria],
        comment="",
        active_seconds=5,
        base_revision=0,
    )
    item = assignment.item
    other = ReviewItem.objects.filter(round=review_round).exclude(pk=item.pk).first()
    label = {x: (x.response.case.external_id, x.response.system.name) for x in (item, other)}
    rows = [
        f"{rater},{label[x][0]},{label[x][1]},{n},0"
        for rater, x in (("exp1", item), ("exp4", item), ("newbie", other))
        for n in range(1, 5)
    ]
    summary = run(csv_bytes(rows, header="rater,question_id,system,criterion,hit"), round_name="R1")
    assert (summary.created_round, summary.items, summary.assignments) == (False, 2, 3)
    assert summary.raters_created == ["newbie"]
    assignment.refresh_from_db()
    assert assignment.revision == 2 and assignment.status == "submitted"
    history = Vote.objects.filter(assignment=assignment)
    assert sorted(set(history.values_list("revision", "hit"))) == [(1, True), (2, False)]
    assert not current_votes(round_=review_round).filter(hit=True).exists()
    item.refresh_from_db()
    other.refresh_from_db()
    assert (item.assigned_count, other.assigned_count) == (2, 1)
    assert {exp4.username, "newbie"} <= set(review_round.experts.values_list("username", flat=True))
    assert review_round.items.count() == 9  # an existing round's sample does not change


@pytest.mark.django_db
def test_a_response_outside_an_existing_round_is_refused(review_round):
    in_round = set(review_round.items.values_list("response__case__external_id", flat=True))
    outside = next(f"c{i:02d}" for i in range(1, 11) if f"c{i:02d}" not in in_round)
    rows = [f"exp1,{outside},SecretAlpha-7b,{n},1" for n in range(1, 5)]
    message = rejected(csv_bytes(rows), round_name="R1")
    assert f"line 2: {outside} / SecretAlpha-7b is not an item of round 'R1'" in message


def without(index: int) -> list:
    rows = file_rows()
    del rows[index]
    return rows


def replaced(index: int, row) -> list:
    rows = file_rows()
    rows[index] = row
    return rows


# file_rows(): ann c01 on lines 2-4, ann c02 on lines 5-8, bob c01 on lines 9-11, ...
@pytest.mark.parametrize(
    ("rows", "header", "words"),
    [
        (file_rows(), "rater,question,system,criterion,hit", "line 1, field 'header'"),
        (file_rows(), "rater,question_id,system,hit", "missing column 'criterion'"),
        (replaced(1, "ann,c01,SecretAlpha-7b,2,yes"), HEADER, "line 3, field 'hit': must be 0"),
        (replaced(1, "ann,c01,SecretAlpha-7b,0,1"), HEADER, "line 3, field 'criterion': must"),
        (
            [*file_rows(), "ann,c01,SecretAlpha-7b,4,1"],
            HEADER,
            "line 23, field 'criterion': criterion 4 is out of range: the current rubric of "
            "'c01' has 3 criteria",
        ),
        (
            without(6),
            HEADER,
            "line 5, field 'criterion': rater 'ann' has no vote on criterion 4 of "
            "c02 / SecretBeta-70b",
        ),
        (
            [*file_rows(), file_rows()[9]],
            HEADER,
            "line 23, field 'criterion': duplicate vote of rater 'bob' on criterion 3 of "
            "c01 / SecretAlpha-7b (first on line 11)",
        ),
        (
            [row.replace("bob,c02", "bob,c99") for row in file_rows()],
            HEADER,
            "line 12, field 'question_id': unknown question_id 'c99'",
        ),
        (
            [row.replace("cat,c01,SecretAlpha-7b", "cat,c01,Nope") for row in file_rows()],
            HEADER,
            "line 16, field 'system': unknown system 'Nope'",
        ),
        (replaced(3, b"ann,c02,SecretBeta\xff,1,1"), HEADER, "line 5: not valid UTF-8"),
        (replaced(3, "ann,,SecretBeta-70b,1,1"), HEADER, "line 5, field 'question_id': must"),
        (
            [row.replace("ann,", "ann smith!,") for row in file_rows()],
            HEADER,
            "line 2, field 'rater': rater 'ann smith!' is not a valid username",
        ),
    ],
)
@pytest.mark.django_db
def test_a_bad_file_is_rejected_by_line_and_field(votes_data, rows, header, words):
    assert words in rejected(csv_bytes(rows, header=header))
    assert not ReviewRound.objects.exists()


@pytest.mark.django_db
def test_a_system_without_a_response_to_the_case_is_refused(votes_data):
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": "c01", "response": "嗯"}])),
        benchmark_slug="hb",
        system_name="Partial",
    )
    rows = [f"ann,c02,Partial,{n},1" for n in range(1, 5)]
    assert "line 2, field 'system': system 'Partial' has no response to 'c02'" in rejected(
        csv_bytes(rows)
    )


@pytest.mark.django_db
def test_the_benchmark_is_inferred_or_must_be_named(votes_data):
    benchmark_import(chunks=lines(jsonl_bytes([question("c01")])), benchmark_slug="other")
    rows = [f"ann,c01,SecretAlpha-7b,{n},1" for n in range(1, 4)]
    assert "several benchmarks (hb, other); name the benchmark" in rejected(csv_bytes(rows))
    assert "no benchmark with slug 'nope'" in rejected(csv_bytes(rows), benchmark_slug="nope")
    # c02 is only in hb, which is therefore the benchmark meant
    rows += [f"ann,c02,SecretAlpha-7b,{n},1" for n in range(1, 5)]
    assert run(csv_bytes(rows)).created_round
    assert ReviewRound.objects.get().benchmark.slug == "hb"


@pytest.mark.django_db
def test_the_command_prints_one_json_object_or_names_the_problems(votes_data, tmp_path, capsys):
    path = tmp_path / "votes.csv"
    path.write_bytes(csv_bytes(file_rows()))
    call_command("import_votes", str(path), "--round", "外部评审", "--json")
    summary = json.loads(capsys.readouterr().out)
    assert summary["votes"] == 21 and summary["created_round"]
    path.write_bytes(csv_bytes(replaced(0, "ann,c01,SecretAlpha-7b,1,2")))
    with pytest.raises(CommandError) as caught:
        call_command("import_votes", str(path), "--round", "外部评审")
    assert "nothing was imported" in str(caught.value)
    assert "line 2, field 'hit': must be 0 or 1, got '2'" in str(caught.value)
