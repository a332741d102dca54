"""Label Studio JSON both ways: a round exported as tasks imports back with every vote."""

import json
import re
import xml.etree.ElementTree as ET

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F

from annotation.importing.issues import ImportRejected
from annotation.interop.label_studio_import import label_studio_votes_import
from annotation.models import Assignment, ReferenceAnswer, ReviewItem, ReviewRound, Vote
from leaderboard.report.selectors.agreement import rater_pseudonyms
from tests.conftest import table_counts
from tests.leaderboard.test_agreement_report import JUDGE, VOTES, data  # noqa: F401

pytestmark = pytest.mark.django_db

# Label Studio's documented control tags and the region type each writes.
REGION_TYPES = {"Choices": "choices", "TextArea": "textarea"}
OBJECT_TAGS = {"Text", "Paragraphs"}


def current_votes(round_: ReviewRound, rater_name) -> dict[tuple, tuple]:
    """(question_id, system, criterion position, rater) -> (hit, note) of current votes."""
    rows = Vote.objects.filter(
        assignment__item__round=round_,
        assignment__status=Assignment.Status.SUBMITTED,
        revision=F("assignment__revision"),
    ).values_list(
        "assignment__item__response__case__external_id",
        "assignment__item__response__system__name",
        "criterion__position",
        "assignment__expert_id",
        "assignment__expert__username",
        "hit",
        "note",
    )
    return {
        (qid, system, position, rater_name(expert_id, username)): (hit, note)
        for qid, system, position, expert_id, username, hit, note in rows
    }


def export_to(tmp_path, round_, *extra) -> tuple[list[dict], str]:
    call_command("export_label_studio", str(tmp_path), "--round", round_.name, *extra)
    tasks = json.loads((tmp_path / "tasks.json").read_text(encoding="utf-8"))
    return tasks, (tmp_path / "label_config.xml").read_text(encoding="utf-8")


def with_note_and_reference(round_):
    """A note on one vote, and the first item a reference item with a known answer."""
    vote = Vote.objects.filter(assignment__item__round=round_).order_by("pk").first()
    Vote.objects.filter(pk=vote.pk).update(note="语气生硬，但符合")
    item = ReviewItem.objects.filter(round=round_).order_by("pk").first()
    ReviewItem.objects.filter(pk=item.pk).update(is_reference=True)
    criterion = item.rubric_version.criteria.get(position=2)
    ReferenceAnswer.objects.create(item=item, criterion=criterion, hit=True, explanation="示例")
    return item


def test_a_round_exports_as_label_studio_tasks_and_imports_back_with_every_vote(
    data,  # noqa: F811
    tmp_path,
):
    round_, run = data
    with_note_and_reference(round_)
    tasks, config = export_to(tmp_path, round_)

    names = rater_pseudonyms(round_=round_)
    assert len(tasks) == 2
    for task in tasks:
        qid = task["data"]["question_id"]
        raters = [a for a in task["annotations"] if not a["ground_truth"]]
        assert sorted(a["completed_by"] for a in raters) == sorted(names.values())
        assert {a["lead_time"] for a in raters} == {10.0}
        (prediction,) = task["predictions"]
        assert prediction["model_version"] == run.judge_version.label
        assert [r["value"]["choices"] for r in prediction["result"]] == [
            [str(hit)] for hit in JUDGE[qid]
        ]
        by_rater = {
            a["completed_by"]: [
                r["value"]["choices"][0] for r in a["result"] if r["type"] == "choices"
            ]
            for a in raters
        }
        expected = sorted(["".join(map(str, pattern)) for pattern in VOTES[qid]])
        assert sorted("".join(v) for v in by_rater.values()) == expected
    (reference,) = [a for t in tasks for a in t["annotations"] if a["ground_truth"]]
    assert reference["completed_by"] == "reference"
    assert reference["result"][0]["from_name"] == "criterion_2"
    assert reference["result"][0]["value"] == {"choices": ["1"]}
    assert "<Choices" in config

    call_command("import_label_studio", str(tmp_path / "tasks.json"), "--round", "R2")
    copy = ReviewRound.objects.get(name="R2")
    before = current_votes(round_, lambda expert_id, _: names[expert_id])
    after = current_votes(copy, lambda _, username: username)
    assert len(before) == 2 * 4 * 3
    assert after == before  # every vote, with its note, under the rater's pseudonym
    assert copy.items.count() == 2 and copy.experts.count() == 3


def test_the_tasks_match_the_labelling_config_as_label_studio_documents_it(
    data,  # noqa: F811
    tmp_path,
):
    """Label Studio's rules: each region's from_name is a control of the config, its
    to_name the object the control labels, its type the control's; a Choices value is one
    of the control's choices (by alias when it has one); every $variable is in the data."""
    round_, _run = data
    with_note_and_reference(round_)
    tasks, config = export_to(tmp_path, round_, "--lang", "zh-hans")
    root = ET.fromstring(config)
    assert root.tag == "View"
    objects = {el.get("name"): el for el in root.iter() if el.tag in OBJECT_TAGS}
    controls = {el.get("name"): el for el in root.iter() if el.tag in REGION_TYPES}
    assert set(objects) == {"dialogue", "response"}
    assert [el.get("name") for el in root.iter("Choices")] == [
        f"criterion_{n}" for n in (1, 2, 3, 4)
    ]
    for control in controls.values():
        assert control.get("toName") in objects
    for choices in root.iter("Choices"):
        assert [(c.get("value"), c.get("alias")) for c in choices] == [
            ("符合", "1"),
            ("不符合", "0"),
        ]
    variables = {
        el.get("value")[1:] for el in root.iter() if (el.get("value") or "").startswith("$")
    }
    for task in tasks:
        assert variables <= set(task["data"])
        for entry in task["annotations"] + task["predictions"]:
            for region in entry["result"]:
                control = controls[region["from_name"]]
                assert region["to_name"] == control.get("toName")
                assert region["type"] == REGION_TYPES[control.tag]
                if control.tag == "Choices":
                    aliases = [c.get("alias") for c in control]
                    assert len(region["value"]["choices"]) == 1
                    assert region["value"]["choices"][0] in aliases
                else:
                    assert all(isinstance(t, str) for t in region["value"]["text"])


def test_a_bad_export_names_each_problem_by_line_and_task_and_writes_nothing(
    data,  # noqa: F811
    tmp_path,
):
    round_, _run = data
    tasks, _config = export_to(tmp_path, round_)
    tasks[0]["annotations"][0]["result"][1]["value"]["choices"] = ["maybe"]
    tasks[1]["annotations"][1]["completed_by"] = None
    del tasks[1]["annotations"][2]["result"][0]  # a missing vote on criterion 1
    tasks[1]["annotations"][0]["result"].append(
        {"from_name": "overall", "to_name": "response", "type": "choices", "value": {}}
    )
    text = json.dumps(tasks, ensure_ascii=False, indent=2)
    second_task_line = text.splitlines().index("  {", 2) + 1
    before = table_counts()
    with pytest.raises(ImportRejected) as caught:
        label_studio_votes_import(data=text.encode(), round_name="R2")
    messages = [str(issue) for issue in caught.value.errors]
    assert messages == [
        "line 2, field 'task 1/annotations[0]/result[1]/value/choices': must be one choice, "
        "'1' (met) or '0' (not met), got ['maybe']",
        f"line {second_task_line}, field 'task 2/annotations[0]/result[4]/from_name': unknown "
        "control 'overall': the controls are criterion_N and note_N",
        f"line {second_task_line}, field 'task 2/annotations[1]/completed_by': must name the rater",
    ]
    assert table_counts() == before

    # With those fixed, the rater short of a vote is named by the votes import's own rule.
    tasks[0]["annotations"][0]["result"][1]["value"]["choices"] = ["0"]
    tasks[1]["annotations"][1]["completed_by"] = "E-TEST"
    tasks[1]["annotations"][0]["result"].pop()
    with pytest.raises(ImportRejected) as caught:
        label_studio_votes_import(data=json.dumps(tasks).encode(), round_name="R2")
    (issue,) = caught.value.errors
    assert issue.field == "criterion" and "has no vote on criterion 1 of c2 / Sys" in str(issue)
    assert table_counts() == before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"", "the file is empty; a Label Studio export is a JSON list"),
        (b'{"data": {}}', "line 1: not a Label Studio export: the file must be a JSON list"),
        (b'[\n {"data": {"question_id": "c1",\n', "line 3: not readable as JSON"),
        (b"[\n 1,\n 2\n] x", "line 4: not readable as JSON: text after the list"),
        (b"[\n\xff]", "line 2: not valid UTF-8"),
        (b"[]", "the file contains no votes"),
    ],
)
def test_a_file_that_is_no_label_studio_export_is_refused_by_line(data, text, message):  # noqa: F811
    with pytest.raises(ImportRejected) as caught:
        label_studio_votes_import(data=text, round_name="R2")
    assert message in str(caught.value)
    assert not ReviewRound.objects.filter(name="R2").exists()


def test_the_commands_say_what_is_wrong_instead_of_failing(data, tmp_path):  # noqa: F811
    with pytest.raises(CommandError, match="no review round named 'nope'"):
        call_command("export_label_studio", str(tmp_path), "--round", "nope")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"data": {"question_id": "c1"}}]', encoding="utf-8")
    with pytest.raises(
        CommandError, match=re.escape("nothing was imported.\nline 1, field 'task 1/data/system'")
    ):
        call_command("import_label_studio", str(bad), "--round", "R2")


def test_label_studio_sdk_accepts_the_config_and_every_annotation_and_prediction(
    data,  # noqa: F811
    tmp_path,
):
    """Run where label-studio-sdk is installed (it is not a test requirement: it brings
    about 230 MB, OpenCV among them)."""
    sdk = pytest.importorskip("label_studio_sdk.label_interface")
    round_, _run = data
    with_note_and_reference(round_)
    tasks, config = export_to(tmp_path, round_)
    interface = sdk.LabelInterface(config)
    interface.validate()
    for task in tasks:
        for entry in task["annotations"] + task["predictions"]:
            assert interface.validate_prediction(entry, return_errors=True) == []
