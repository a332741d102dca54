"""The agreement report is a typed value whose JSON is the report's JSON: for every shape a
report takes (tests/leaderboard/report_reference.py) the same keys, in the same order, with
the same values as agreement_report_reference.json; a stored report reads back as the same
report; and a report is amended only by a new one."""

import json
from dataclasses import FrozenInstanceError, replace

import pytest

from leaderboard.gate.services.evaluation import gate_evaluate
from leaderboard.models import GateEvaluation
from leaderboard.report.agreement import agreement_report
from leaderboard.report.reading import STATISTICS
from leaderboard.report.typed import AgreementReport
from leaderboard.selection.calibration_guard import held_out, with_guard
from tests.conftest import evidence_of
from tests.leaderboard.report_reference import (
    GUARDED,
    REFERENCE,
    calibration_of,
    report_arguments,
)
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

EXPECTED = json.loads(REFERENCE.read_text(encoding="utf-8"))


def _reports() -> dict[str, AgreementReport]:
    shapes = report_arguments()
    reports = {
        name: agreement_report(units, **options) for name, (units, options) in shapes.items()
    }
    for name, (shape, items) in GUARDED.items():
        units, options = shapes[shape]
        guard = held_out(units, calibration_of(units), items=items)
        reports[name] = with_guard(agreement_report(guard.units, **options), guard, round_name="R0")
    return reports


@pytest.fixture(scope="module")
def reports() -> dict[str, AgreementReport]:
    return _reports()


def _text(value) -> str:
    """As JSON text: equal texts have the same keys in the same order at every level, and
    the same numbers to the last bit."""
    return json.dumps(value, ensure_ascii=False, indent=1)


def test_the_reference_holds_every_shape_of_a_report():
    assert set(_reports()) == set(EXPECTED)
    # Optional entries: absent, present, and present but undefined.
    assert "sampling" not in EXPECTED["plain"] and "sequential" not in EXPECTED["plain"]
    assert (
        "sampling" in EXPECTED["equal_weights"] and "weighted_95" not in EXPECTED["equal_weights"]
    )
    assert EXPECTED["weighted"]["weighted_95"] is not None
    assert EXPECTED["weighted_one_dialogue"]["weighted_95"] is None
    assert "weighted_95" in EXPECTED["weighted_one_dialogue"]["undefined"]
    assert [name for name in EXPECTED if "calibration" in EXPECTED[name]] == list(GUARDED)
    assert EXPECTED["calibration_leak"]["gate"]["refusal"] == "calibration_leak"
    assert "calibration" in EXPECTED["calibration_held_out"]["excluded"]
    assert EXPECTED["no_units"]["units"] == EXPECTED["nothing_judged"]["units"] == 0
    rules = {report["gate"]["rule_name"] for report in EXPECTED.values()}
    assert rules == {"point", "lower_bound", "sequential"}
    assert {"chance", "rounds"} <= set(EXPECTED["lower_bound"]["gate"])
    assert "unequal_chances_round" in EXPECTED["sequential_unequal"]["gate"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_json_has_the_reports_keys_order_and_values(reports, name):
    assert _text(reports[name].as_json()) == _text(EXPECTED[name])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_report_kept_as_json_reads_back_as_the_same_report(reports, name):
    kept = json.loads(json.dumps(reports[name].as_json()))
    again = AgreementReport.from_json(kept)
    assert again == reports[name]
    assert _text(again.as_json()) == _text(kept)


def test_a_report_is_amended_only_by_a_new_one():
    units, options = report_arguments()["point_history"]
    report = agreement_report(units, **options)
    before = _text(report.as_json())
    guarded = with_guard(report, held_out(units, calibration_of(units), items=3), round_name="R0")
    assert guarded.gate["refusal"] == "calibration_leak" and guarded.excluded.calibration
    assert _text(report.as_json()) == before
    assert report.calibration is None and report.excluded.calibration is None
    with pytest.raises(FrozenInstanceError):
        report.units = 0  # type: ignore[misc]


def test_a_weighted_interval_comes_with_the_sampling_that_describes_it(reports):
    with pytest.raises(ValueError, match="weighted_interval"):
        replace(reports["plain"], weighted_95=[0.5, 0.9])


def test_each_statistic_read_aloud_is_the_reports_own(reports):
    report, expected = reports["weighted"], EXPECTED["weighted"]
    for key, _label, _kind in STATISTICS:
        section, _dot, name = key.rpartition(".")
        value = expected[section][name] if section else expected[name]
        assert report.statistic(key) == value, key
    for not_a_statistic in ("gate", "by_rater", "gate.passed"):
        with pytest.raises(KeyError):
            report.statistic(not_a_statistic)


@pytest.mark.django_db
def test_a_gate_evaluation_stores_the_reports_json(data):  # noqa: F811
    round_, run = data
    evidence = evidence_of(round_, run)
    gate_evaluate(evidence=evidence)
    stored = GateEvaluation.objects.get().report
    assert stored == json.loads(json.dumps(evidence.report.as_json()))
    assert AgreementReport.from_json(stored) == evidence.report
