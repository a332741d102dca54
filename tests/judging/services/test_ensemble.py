"""Ensemble judges against the simulator over real HTTP: k samples of one model (or a panel
of versions), every member's verdicts kept, the majority per criterion, the members'
disagreement per unit exported."""

import csv
import io
import json
from collections import defaultdict

import pytest
from django.core.management import call_command

from judging.models import JudgeAttempt, JudgeRun, JudgeVersion, MemberVerdict, Verdict
from judging.services.ensemble_settings import ensemble_version_save, panel_version_save
from judging.services.judge_versions import ConfigInvalid
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start
from leaderboard.exports.headers import VERDICTS_HEADER
from leaderboard.exports.tables import verdict_rows

pytestmark = pytest.mark.django_db(transaction=True)


def _run(judged_benchmark, version) -> JudgeRun:
    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems, version=version)
    run_here(run_id=run.pk, lanes=4)
    run.refresh_from_db()
    return run


def _five_samples(sim_config, **calls) -> JudgeVersion:
    config = sim_config(temperature=0.7, seed=7, **calls)
    return ensemble_version_save(base=config.current_version, samples=5)


def _member_votes_from_raw(run) -> dict:
    """(task, criterion position) -> the members' hits, read from the raw replies."""
    votes = defaultdict(list)
    for attempt in JudgeAttempt.objects.filter(task__run=run, outcome="ok"):
        for position, item in enumerate(json.loads(attempt.raw_output)["verdicts"], start=1):
            votes[(attempt.task_id, position)].append(item["hit"])
    return votes


def test_five_samples_store_every_member_and_the_majority(judged_benchmark, sim_config):
    version = _five_samples(sim_config)
    assert version.ensemble == {"kind": "self_consistency", "samples": 5}
    run = _run(judged_benchmark, version)
    assert run.status == JudgeRun.Status.FINISHED
    assert set(run.tasks.values_list("status", flat=True)) == {"done"}
    for task in run.tasks.all():
        calls = task.attempt_log.all()
        assert sorted(calls.values_list("member", flat=True)) == [1, 2, 3, 4, 5]
        assert set(MemberVerdict.objects.filter(task=task).values_list("member", flat=True)) == {
            1,
            2,
            3,
            4,
            5,
        }
        # The task's tokens are every member's.
        assert task.prompt_tokens == sum(calls.values_list("prompt_tokens", flat=True)) > 0
    raw = _member_votes_from_raw(run)
    assert len(raw) == 8 * 4 and all(len(hits) == 5 for hits in raw.values())
    assert any(0 < sum(hits) < 5 for hits in raw.values()), "the samples never differed"
    for verdict in Verdict.objects.filter(task__run=run).select_related("criterion"):
        hits = raw[(verdict.task_id, verdict.criterion.position)]
        assert verdict.hit == (sum(hits) >= 3)
    assert Verdict.objects.filter(task__run=run).count() == 8 * 4


def test_disagreement_is_exported_in_the_verdicts_table_and_the_run_json(
    judged_benchmark, sim_config
):
    run = _run(judged_benchmark, _five_samples(sim_config))
    raw = _member_votes_from_raw(run)
    assert VERDICTS_HEADER[-2:] == ("members_votes", "members_disagreement")
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(VERDICTS_HEADER)
    writer.writerows(verdict_rows(run=run))
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert len(rows) == 8 * 4
    tasks = {
        (t.case.external_id, t.system.name): t.pk
        for t in run.tasks.select_related("case", "system")
    }
    for row in rows:
        hits = raw[(tasks[(row["question_id"], row["system"])], int(row["criterion_position"]))]
        met = sum(hits)
        assert row["members_votes"] == f"{met}/{5 - met}/0"
        assert float(row["members_disagreement"]) == pytest.approx(min(met, 5 - met) / 5)
    out = io.StringIO()
    call_command("runs", "show", str(run.pk), "--json", stdout=out)
    ensemble = json.loads(out.getvalue())["ensemble"]
    split = sum(1 for hits in raw.values() if 0 < sum(hits) < 5)
    assert ensemble["size"] == 5 and ensemble["units"] == 32
    assert ensemble["member_calls"] == {"answered": 40, "failed": 0}
    assert ensemble["units_split"] == split and ensemble["units_undefined"] == 0
    shares = [min(sum(h), 5 - sum(h)) / 5 for h in raw.values()]
    assert ensemble["mean_disagreement"] == pytest.approx(sum(shares) / 32, abs=1e-4)


def test_a_failing_member_is_reported_failed_and_never_votes(
    judged_benchmark, sim_config, simulator
):
    simulator.configure(rate_500=0.35)
    run = _run(judged_benchmark, _five_samples(sim_config, max_attempts=1))
    failed_calls = JudgeAttempt.objects.filter(task__run=run).exclude(outcome="ok")
    assert failed_calls.exists()
    assert all(call.member > 0 for call in failed_calls)
    # A member votes on a task exactly when one of its calls there answered: a failed call
    # is no vote, though a retry of the task (one the failure did not count against it)
    # may call the member again and hear it.
    answered = set(
        JudgeAttempt.objects.filter(task__run=run, outcome="ok").values_list("task", "member")
    )
    voted = set(MemberVerdict.objects.filter(task__run=run).values_list("task", "member"))
    assert voted == answered
    assert {(call.task_id, call.member) for call in failed_calls} - answered
    raw = _member_votes_from_raw(run)
    decided = {
        (v.task_id, v.criterion.position): v.hit
        for v in Verdict.objects.filter(task__run=run).select_related("criterion")
    }
    for task in run.tasks.all():
        answered = task.attempt_log.filter(outcome="ok").count()
        assert task.status == ("done" if answered >= 3 else "failed")
        if answered < 5:
            assert "member" in task.last_error
    for key, hits in raw.items():
        met, not_met = sum(hits), len(hits) - sum(hits)
        # A majority of all five members, or no verdict at all: never a guess.
        expected = True if met >= 3 else False if not_met >= 3 else None
        assert decided.get(key) == expected
    rows = list(verdict_rows(run=run))
    assert any(row[-2] and row[-2].endswith(("/1", "/2")) for row in rows)
    summary = io.StringIO()
    call_command("runs", "show", str(run.pk), "--json", stdout=summary)
    calls = json.loads(summary.getvalue())["ensemble"]["member_calls"]
    assert calls["failed"] == failed_calls.count()


def test_self_consistency_refuses_temperature_zero_and_even_or_out_of_range_k(sim_config):
    base = sim_config().current_version  # temperature 0
    with pytest.raises(ConfigInvalid, match="temperature above 0"):
        ensemble_version_save(base=base, samples=5)
    warm = sim_config(name="warm", temperature=0.7).current_version
    for samples in (4, 1, 11):
        with pytest.raises(ConfigInvalid, match="must be odd"):
            ensemble_version_save(base=warm, samples=samples)
    assert JudgeVersion.objects.filter(ensemble__isnull=False).count() == 0


def test_an_ensemble_is_a_new_version_with_its_own_fingerprint(sim_config):
    config = sim_config(temperature=0.7)
    single = config.current_version
    five = ensemble_version_save(base=single, samples=5)
    seven = ensemble_version_save(base=single, samples=7)
    again = ensemble_version_save(base=single, samples=5)
    assert len({single.fingerprint, five.fingerprint, seven.fingerprint}) == 3
    assert again.pk == five.pk and five.number == 2 and seven.number == 3
    # A single judge's fingerprint is what it was before ensembles existed.
    assert "ensemble" not in single.settings()


def test_a_panel_of_versions_votes_with_each_members_settings(judged_benchmark, sim_config):
    members = [sim_config(name=f"m{n}", seed=n, temperature=0.5).current_version for n in (1, 2, 3)]
    panel = panel_version_save(name="panel", members=members)
    run = _run(judged_benchmark, panel)
    assert set(run.tasks.values_list("status", flat=True)) == {"done"}
    snapshot_members = run.settings_snapshot["ensemble"]["members"]
    assert [m["label"] for m in snapshot_members] == ["m1 v1", "m2 v1", "m3 v1"]
    assert MemberVerdict.objects.filter(task__run=run).count() == 8 * 4 * 3
    raw = _member_votes_from_raw(run)
    for verdict in Verdict.objects.filter(task__run=run).select_related("criterion"):
        assert verdict.hit == (sum(raw[(verdict.task_id, verdict.criterion.position)]) >= 2)
    with pytest.raises(ConfigInvalid, match="ensemble itself"):
        panel_version_save(name="panel2", members=[members[0], panel])
    with pytest.raises(ConfigInvalid, match="from 2 to 9"):
        panel_version_save(name="panel3", members=[members[0]])
