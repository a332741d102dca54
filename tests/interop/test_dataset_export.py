"""export_dataset: Parquet tables and a dataset card that the `datasets` library loads."""

import json
from decimal import Decimal

import pytest
import yaml
from django.core.management import CommandError, call_command

from annotation.models import ExpertProfile, ReviewRound
from judging.models import JudgeRun
from leaderboard.exports.headers import VOTES_HEADER
from leaderboard.report.selectors.agreement import rater_pseudonyms
from tests.leaderboard.test_agreement_report import JUDGE, data  # noqa: F401

datasets = pytest.importorskip("datasets")

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def hf_cache(tmp_path, monkeypatch):
    """The library's cache in the test's own folder, not the user's."""
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-cache")


def card_of(out):
    text = (out / "README.md").read_text(encoding="utf-8")
    _, header, body = text.split("---\n", 2)
    return yaml.safe_load(header), body


def test_the_export_loads_with_datasets_and_carries_every_vote_and_verdict(
    data,  # noqa: F811
    tmp_path,
):
    round_, run = data
    ReviewRound.objects.filter(pk=round_.pk).update(rate_per_item=Decimal("12.50"))
    out = tmp_path / "hb-dataset"
    call_command(
        "export_dataset", str(out), "--benchmark", "hb", "--round", "R", "--license", "cc-by-4.0"
    )

    responses = datasets.load_dataset("parquet", data_dir=str(out), split="test")
    assert responses.num_rows == 2
    assert sorted(responses["question_id"]) == ["c1", "c2"]
    assert set(responses["system"]) == {"Sys"} and all(responses["in_round"])
    assert json.loads(responses[0]["dialogue"])[0]["content"]

    votes = datasets.load_dataset("parquet", data_dir=str(out / "votes"), split="test")
    assert votes.column_names == list(VOTES_HEADER)
    assert votes.num_rows == 2 * 4 * 3
    assert set(votes["rater"]) == set(rater_pseudonyms(round_=round_).values())
    assert set(votes["hit"]) == {0, 1} and set(votes["is_current"]) == {1}

    verdicts = datasets.load_dataset(str(out), "verdicts", split="test")  # by the card
    got = {}
    for row in verdicts:
        got.setdefault(row["question_id"], {})[row["criterion_position"]] = row["hit"]
    assert {q: [got[q][p] for p in (1, 2, 3, 4)] for q in got} == JUDGE
    assert set(verdicts["judge_run"]) == {run.pk}

    criteria = datasets.load_dataset(str(out), "criteria", split="test")
    assert criteria.num_rows == 2 * 4
    corrected = datasets.load_dataset(str(out), "corrected", split="test")
    assert "Sys" in corrected["system"] and "overall" in corrected["score"]
    # A number the board could not estimate is empty (null), never NaN.
    assert all(v is None or v == v for v in corrected["corrected"])

    header, body = card_of(out)
    assert header["license"] == "cc-by-4.0"
    assert [c["config_name"] for c in header["configs"]] == [
        "responses",
        "criteria",
        "votes",
        "verdicts",
        "corrected",
    ]
    info = {c["config_name"]: c for c in header["dataset_info"]}
    assert info["votes"]["splits"] == [{"name": "test", "num_examples": 24}]
    # The card's features are the ones the library reads from the files.
    for name, loaded in (("votes", votes), ("verdicts", verdicts), ("responses", responses)):
        declared = {f["name"]: f["dtype"] for f in info[name]["features"]}
        assert declared == {k: v.dtype for k, v in loaded.features.items()}
    assert "Blinding." in body and "not shown which system wrote it" in body
    assert "piece rate of 12.50 per submitted item" in body
    assert "```bibtex\n@misc{hb_" in body
    assert run.judge_version.label in body


def test_without_a_round_or_pay_the_card_says_so(data, tmp_path):  # noqa: F811
    round_, _run = data
    out = tmp_path / "plain"
    call_command("export_dataset", str(out), "--benchmark", "hb", "--judge-run", "none")
    header, body = card_of(out)
    assert [c["config_name"] for c in header["configs"]] == ["responses", "criteria"]
    assert "it holds no expert votes" in body and "it holds no verdicts" in body
    assert header["license"] == "other" and "set it with --license" in body
    assert datasets.load_dataset("parquet", data_dir=str(out), split="test").num_rows == 2

    expert = round_.experts.order_by("pk").first()
    ExpertProfile.objects.update_or_create(user=expert, defaults={"rate_per_item": 30})
    call_command("export_dataset", str(out), "--benchmark", "hb", "--round", "R")
    _header, body = card_of(out)
    assert "1 of the 3 experts were paid a piece rate of their own" in body


def test_the_command_names_what_it_cannot_find(data, tmp_path):  # noqa: F811
    with pytest.raises(CommandError, match="no benchmark with slug 'nope'"):
        call_command("export_dataset", str(tmp_path), "--benchmark", "nope")
    with pytest.raises(CommandError, match="has no review round 'X'"):
        call_command("export_dataset", str(tmp_path), "--benchmark", "hb", "--round", "X")
    missing = JudgeRun.objects.order_by("-pk").first().pk + 1
    with pytest.raises(CommandError, match=f"has no judge run {missing}"):
        call_command(
            "export_dataset", str(tmp_path), "--benchmark", "hb", "--judge-run", str(missing)
        )
