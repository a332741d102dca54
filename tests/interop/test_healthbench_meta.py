"""A round's expert votes in HealthBench's meta-evaluation format: the lines carry what
simple-evals' healthbench_meta_eval.py reads, and its agreement computation, run on the
file, gives the judge panel's macro F1 for the judge and for every expert."""

import json
from collections import defaultdict

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from accounts.roles import EXPERT, RESEARCHER
from accounts.services import user_create_with_role
from annotation.models import Benchmark, ReviewItem, ReviewRound, System, Vote, VotesSeen
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import VoteInput, assignment_submit
from leaderboard.panel.selectors import judge_panel
from leaderboard.report.selectors.agreement import rater_pseudonyms
from tests.annotation.importing.test_healthbench_import import healthbench_example
from tests.conftest import client_for
from tests.judging.test_healthbench_round import (
    EXAMPLES,
    IDEAL,
    JUDGE,
    MODEL,
    THEMES,
    benchmark,  # noqa: F401  (the HealthBench benchmark fixture)
    grader_output,
    import_grader_output,
    truth,
)
from tests.leaderboard.test_agreement_report import VOTES, data  # noqa: F401

pytestmark = pytest.mark.django_db

KEYS = {"prompt", "completion", "rubric", "category", "binary_labels", "anonymized_physician_ids"}


def expert_vote(expert: int, index: int, system: str, position: int) -> bool:
    """What expert `expert` saw: the behaviour, misread on some criteria, differently by
    each expert, so that the experts disagree with each other and with the grader."""
    slip = (index * 5 + position * 3 + expert * 7 + (system == MODEL)) % 6 == 0
    return truth(index, system, position) != slip


@pytest.fixture
def hb_round(benchmark):  # noqa: F811
    """Four experts, three of them per response, on every response of both systems."""
    experts = [
        user_create_with_role(username=f"doctor{i}", password="x", role=EXPERT) for i in range(4)
    ]
    round_ = round_open(
        benchmark=benchmark,
        name="HB meta",
        systems=list(System.objects.filter(name__in=[MODEL, IDEAL])),
        experts=experts,
        fraction=1.0,
        raters_per_item=3,
    )
    while True:
        handed = 0
        for number, expert in enumerate(experts):
            assignment = assignment_next(expert=expert, round_=round_)
            if assignment is None:
                continue
            handed += 1
            response = assignment.item.response
            index = int(response.case.external_id.split("-")[1])
            criteria = assignment.item.rubric_version.criteria.order_by("position")
            assignment_submit(
                assignment=assignment,
                votes=[
                    VoteInput(c.pk, expert_vote(number, index, response.system.name, c.position))
                    for c in criteria
                ],
                comment="",
                active_seconds=30,
                base_revision=assignment.revision,
            )
        if not handed:
            break
    return round_, experts


def export(tmp_path, capsys, round_name: str, *extra) -> tuple[list[dict], dict]:
    path = tmp_path / "meta.jsonl"
    capsys.readouterr()
    call_command("export_healthbench_meta", round_name, "--output", str(path), "--json", *extra)
    summary = json.loads(capsys.readouterr().out)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return rows, summary


def test_a_healthbench_round_exports_one_line_per_response_and_criterion(
    hb_round, tmp_path, capsys
):
    round_, experts = hb_round
    rows, summary = export(tmp_path, capsys, round_.name)

    assert len(rows) == EXAMPLES * 2 * 4  # every response of both systems, four criteria
    assert summary["rows"] == len(rows) and summary["units_with_fewer_votes"] == 0
    assert summary["votes"] == len(rows) * 3 == Vote.objects.count()
    assert summary["experts"] == 4 and summary["format"] == "healthbench-meta-eval"
    names = rater_pseudonyms(round_=round_)
    number_of = {names[expert.pk]: number for number, expert in enumerate(experts)}
    items = {
        item.code: item
        for item in ReviewItem.objects.filter(round=round_).select_related(
            "response__system", "response__case"
        )
    }
    for row in rows:
        assert set(row) >= KEYS
        item = items[row["item"]]
        index = int(row["prompt_id"].split("-")[1])
        example = healthbench_example(row["prompt_id"])
        assert row["prompt"] == example["prompt"]
        assert row["completion"] == item.response.text
        position = row["criterion_position"]
        assert row["rubric"] == example["rubrics"][position - 1]["criterion"]
        assert row["category"] == THEMES[index % 2]
        ids = row["anonymized_physician_ids"]
        assert len(ids) == len(row["binary_labels"]) == 3 and ids == sorted(ids)
        assert row["binary_labels"] == [
            expert_vote(number_of[name], index, item.response.system.name, position) for name in ids
        ]
    text = (tmp_path / "meta.jsonl").read_text(encoding="utf-8")
    assert not any(expert.username in text for expert in experts)  # pseudonyms only


# The reference's agreement computation (healthbench_meta_eval.py,
# compute_metrics_for_rater_by_class and the loop that calls it per physician), worked out
# again from its procedure: a rater's label is compared with each other label of the same
# line, one pair at a time, pooled over the lines. Precision of a class is the share of
# agreeing pairs among the pairs where the rater said it, recall the share among the pairs
# where the other label said it; F1 per class, and `pairwise_*_f1_balanced` is the mean of
# the two classes' F1.
def reference_balanced_f1(own_labels: list[bool], other_labels: list[list[bool]]) -> float:
    agree = defaultdict(list)
    for own, others in zip(own_labels, other_labels, strict=True):
        for other in others:
            agree[("precision", own)].append(own == other)
            agree[("recall", other)].append(own == other)
    f1 = []
    for label in (True, False):
        precision = sum(agree[("precision", label)]) / len(agree[("precision", label)])
        recall = sum(agree[("recall", label)]) / len(agree[("recall", label)])
        f1.append(
            0.0 if precision == recall == 0 else 2 * precision * recall / (precision + recall)
        )
    return (f1[0] + f1[1]) / 2


def reference_physician_f1(rows: list[dict]) -> dict[str, float]:
    """Each physician against the others on the same lines, as the reference loops."""
    own: dict[str, list[bool]] = defaultdict(list)
    others: dict[str, list[list[bool]]] = defaultdict(list)
    for row in rows:
        labels = row["binary_labels"]
        for i, physician in enumerate(row["anonymized_physician_ids"]):
            own[physician].append(labels[i])
            others[physician].append(labels[:i] + labels[i + 1 :])
    return {p: reference_balanced_f1(own[p], others[p]) for p in own}


def test_the_meta_eval_computation_on_the_file_gives_the_judge_panels_macro_f1(
    hb_round, tmp_path, capsys
):
    round_, _experts = hb_round
    for system in (MODEL, IDEAL):
        import_grader_output(tmp_path, system, grader_output(system), capsys)
    rows, _summary = export(tmp_path, capsys, round_.name)
    # The grader's label on each line: the imported grader output's criteria_met, as the
    # meta-eval would have it from the grader model.
    system_of = dict(
        ReviewItem.objects.filter(round=round_).values_list("code", "response__system__name")
    )
    grader = [
        truth(int(r["prompt_id"].split("-")[1]), system_of[r["item"]], r["criterion_position"])
        for r in rows
    ]

    panel = judge_panel(
        benchmark=Benchmark.objects.get(slug="hb"), round_ref=round_.name, judge=JUDGE
    )
    assert panel["units"]["compared"] == len(rows)
    model_f1 = reference_balanced_f1(grader, [r["binary_labels"] for r in rows])
    assert panel["f1"]["judge"]["value"] == pytest.approx(model_f1, abs=1e-12)
    physicians = reference_physician_f1(rows)
    concord = {one["rater"]: one["value"] for one in panel["f1"]["experts"]}
    assert set(concord) == set(physicians) and len(physicians) == 4
    for physician, value in physicians.items():
        assert concord[physician] == pytest.approx(value, abs=1e-12), physician
    # The experts disagree: the numbers are not the trivial 1.0.
    assert all(value < 1 for value in physicians.values())


def test_a_heartbench_round_exports_with_its_dialogue_and_primary_scene(
    data,  # noqa: F811
    tmp_path,
    capsys,
):
    round_, _run = data
    rows, summary = export(tmp_path, capsys, round_.name)
    assert len(rows) == 2 * 4 and summary["experts"] == 3
    names = rater_pseudonyms(round_=round_)
    by_name = {
        names[pk]: int(username[1:])
        for pk, username in round_.experts.values_list("pk", "username")
    }
    for row in rows:
        assert row["category"] == "职场心理"
        assert row["prompt"] == [{"role": "A", "content": "最近加班太多了，我觉得自己快撑不住了。"}]
        assert row["completion"] == "嗯"
        pattern = VOTES[row["prompt_id"]]
        position = row["criterion_position"]
        assert row["binary_labels"] == [
            bool(pattern[by_name[name]][position - 1]) for name in row["anonymized_physician_ids"]
        ]


def test_bad_requests_are_refused_and_write_nothing(data, tmp_path, capsys):  # noqa: F811
    round_, _run = data
    out = tmp_path / "out.jsonl"
    with pytest.raises(CommandError, match="no review round named 'nope'"):
        call_command("export_healthbench_meta", "nope", "--output", str(out))
    with pytest.raises(CommandError, match="--min-votes must be at least 1"):
        call_command(
            "export_healthbench_meta", round_.name, "--output", str(out), "--min-votes", "0"
        )
    with pytest.raises(CommandError, match="nothing written"):
        call_command(
            "export_healthbench_meta", round_.name, "--output", str(out), "--min-votes", "4"
        )
    assert not out.exists() and list(tmp_path.iterdir()) == []
    # One vote per line is allowed when asked for: every line then has all three.
    rows, summary = export(tmp_path, capsys, round_.name, "--min-votes", "1")
    assert summary["min_votes"] == 1 and len(rows) == 8


def test_the_exports_page_offers_the_file_and_records_who_read_the_votes(
    data,  # noqa: F811
    tmp_path,
    capsys,
):
    round_, _run = data
    researcher = user_create_with_role(username="res", password="x-pass-123", role=RESEARCHER)
    client = client_for(researcher)
    url = reverse("export-healthbench-meta", args=["hb", round_.pk])
    page = client.get(reverse("exports", args=["hb"]), {"round": round_.pk})
    assert url in page.content.decode()

    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    assert f"hb-healthbench-meta-round{round_.pk}.jsonl" in response["Content-Disposition"]
    body = b"".join(response.streaming_content)
    export(tmp_path, capsys, round_.name)
    assert body == (tmp_path / "meta.jsonl").read_bytes()
    assert VotesSeen.objects.filter(item__round=round_, user=researcher).exists()

    other = ReviewRound.objects.create(benchmark=round_.benchmark, name="empty")
    empty = client.get(reverse("export-healthbench-meta", args=["hb", other.pk]))
    assert empty.status_code == 400 and "nothing to export" in empty.content.decode()
    assert client.get(reverse("export-healthbench-meta", args=["hb", 99999])).status_code == 404
    expert = round_.experts.first()
    refused = client_for(expert).get(url)
    assert refused.status_code in (302, 403)
