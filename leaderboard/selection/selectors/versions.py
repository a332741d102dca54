"""Every judge version evaluated on one review round, side by side, to choose one: its
agreement with the experts' majority (with its interval), Cohen's kappa, its paired
difference to the best version, its cost per 1,000 responses and the median latency of a
call, whether its evidence passes the benchmark's gate, and the cheapest that passes.

A version is in when its finished runs together judged every response of the round; its
verdicts are the newest its runs hold per response, as the agreement report reads them
for a judge. Cost and latency come from the calls those runs made for the round's responses
(the same responses for every version), at the configuration's current prices; for an
ensemble, every member's calls, and the latency of a judgment is its members' together."""

from collections import defaultdict
from decimal import Decimal

from django.db.models import Count, Q, Sum
from django.utils.translation import gettext as _

from annotation.models import Benchmark, ReviewItem, ReviewRound
from config.version import CONCORD_VERSION
from judging import ensemble_vote
from judging.models import JudgeAttempt, JudgeRun, JudgeTask, JudgeVersion
from judging.models.runs import finished_judge_runs
from leaderboard.boards.selectors.runs import judge_version_header
from leaderboard.evidence.provenance import rubric_versions_of
from leaderboard.evidence.selectors.holdout import calibration_responses, derived_on_round
from leaderboard.evidence.selectors.pick import benchmark_rounds, gate_policy
from leaderboard.report.agreement import GateRule, agreement_report
from leaderboard.report.selectors.agreement import agreement_units_by_version, sampling_weights
from leaderboard.report.typed import AgreementReport
from leaderboard.selection.calibration_guard import held_out, with_guard
from leaderboard.selection.choice import (
    Candidate,
    agreement_flags,
    cheapest_passing,
    cost_per_thousand,
    majorities,
    median_latency,
    ranked,
    summed_cost,
    versus_best,
)
from leaderboard.selection.selectors.calibration import calibration_to_held_out
from leaderboard.sequential.evidence import sequential_block
from leaderboard.stats import DEFAULT_RESAMPLES


class SelectionInvalid(Exception):
    """The round asked for is not found, or its name is ambiguous; the message says which."""


def selection_round(*, ref: str, benchmark: Benchmark | None = None) -> ReviewRound:
    """The review round named `ref` (or with that id), in `benchmark` when one is given,
    else in whichever benchmark has a round of that name (it must be only one). Without
    `ref`, the benchmark's newest round."""
    ref = (ref or "").strip()
    if not ref and benchmark is not None:
        newest = benchmark_rounds(benchmark=benchmark).select_related("benchmark").first()
        if newest is None:
            raise SelectionInvalid(_("This benchmark has no review round yet."))
        return newest
    rounds = ReviewRound.objects.select_related("benchmark")
    if benchmark is not None:
        rounds = rounds.filter(benchmark=benchmark)
    named = Q(name=ref) | Q(pk=int(ref)) if ref.isdigit() else Q(name=ref)
    found = list(rounds.filter(named)[:10])
    # Within a benchmark an id comes first, as the agreement page links by id; across
    # benchmarks a name does.
    by_id = [r for r in found if str(r.pk) == ref] if benchmark is not None else []
    by_name = by_id or [r for r in found if r.name == ref] or found
    if not by_name:
        raise SelectionInvalid(_("No review round %(ref)s.") % {"ref": repr(ref)})
    if len(by_name) > 1:
        raise SelectionInvalid(
            _("Review rounds named %(ref)s exist in several benchmarks (%(slugs)s); name one.")
            % {"ref": repr(ref), "slugs": ", ".join(sorted(r.benchmark.slug for r in by_name))}
        )
    return by_name[0]


def _covering_runs(round_: ReviewRound, items: int) -> dict[int, list[JudgeRun]]:
    """Per judge version whose finished runs together judged every response of the round:
    those runs, newest first. Two queries."""
    versions = list(
        JudgeTask.objects.requested()
        .filter(
            finished_judge_runs("run__"),
            run__benchmark=round_.benchmark,
            response__review_items__round=round_,
        )
        .values("run__judge_version")
        .annotate(n=Count("response", distinct=True))
        .filter(n=items)
        .values_list("run__judge_version", flat=True)
    )
    runs: dict[int, list[JudgeRun]] = defaultdict(list)
    for run in (
        JudgeRun.objects.finished()
        .filter(benchmark=round_.benchmark, judge_version__in=versions)
        .select_related(
            "judge_version__config", "judge_version__prompt", "judge_version__derived_from_round"
        )
        .order_by("-finished", "-pk")
    ):
        runs[run.judge_version_id].append(run)
    return runs


def _usage(round_: ReviewRound, runs: list[JudgeRun]) -> tuple[dict, dict]:
    """Per judge version: the tokens its calls for the round's responses reported (with the
    tasks they were for), and those calls' latencies. Answers reused from the cache cost
    nothing and took no call. Two queries."""
    calls = JudgeAttempt.objects.filter(
        task__run__in=[run.pk for run in runs], task__response__review_items__round=round_
    ).exclude(outcome=JudgeAttempt.Outcome.CACHED)
    tokens = {
        row["task__run__judge_version"]: row
        for row in calls.filter(Q(prompt_tokens__gt=0) | Q(completion_tokens__gt=0))
        .values("task__run__judge_version")
        .annotate(
            tasks=Count("task", distinct=True),
            calls=Count("pk"),
            prompt=Sum("prompt_tokens"),
            completion=Sum("completion_tokens"),
        )
    }
    latencies: dict[int, list[int]] = defaultdict(list)
    # An ensemble's members are called one after another: a judgment takes their sum.
    judgments: dict[tuple, int] = defaultdict(int)
    for version, task, number, member, latency in calls.values_list(
        "task__run__judge_version", "task_id", "number", "member", "latency_ms"
    ):
        if member:
            judgments[(version, task, number)] += latency
        else:
            latencies[version].append(latency)
    for (version, _task, _number), latency in judgments.items():
        latencies[version].append(latency)
    _panel_prices(runs, calls, tokens)
    return tokens, latencies


def _panel_prices(runs: list[JudgeRun], calls, tokens: dict) -> None:
    """A panel's members are priced by their own configurations: each version's tokens row
    gets `members`, (tokens, prices) per member. Two queries, only when a panel was run."""
    panels = {
        run.judge_version_id: run.judge_version.ensemble["members"]
        for run in runs
        if (run.judge_version.ensemble or {}).get("kind") == ensemble_vote.PANEL
    }
    if not panels:
        return
    member_ids = {pk for members in panels.values() for pk in members}
    prices = {
        v.pk: (Decimal(v.config.price_prompt_per_1k), Decimal(v.config.price_completion_per_1k))
        for v in JudgeVersion.objects.filter(pk__in=member_ids).select_related("config")
    }
    for row in (
        calls.filter(task__run__judge_version__in=list(panels), member__gt=0)
        .values("task__run__judge_version", "member")
        .annotate(prompt=Sum("prompt_tokens"), completion=Sum("completion_tokens"))
    ):
        version = row["task__run__judge_version"]
        if version not in tokens:
            continue
        member_version = panels[version][row["member"] - 1]
        tokens[version].setdefault("members", []).append(
            (row["prompt"] or 0, row["completion"] or 0, prices[member_version])
        )


def _stat(value: float | None, reason: str | None) -> dict:
    return {"value": value, "reason": reason}


def _interval(bounds: list | None, reason: str | None) -> dict:
    low, high = bounds or (None, None)
    return {"low": low, "high": high, "reason": None if bounds else reason}


def _judge(
    version: JudgeVersion, runs, report: AgreementReport, frozen_ok: bool, tokens, latencies
) -> dict:
    config = version.config
    used = tokens.get(version.pk) or {"tasks": 0, "calls": 0, "prompt": 0, "completion": 0}
    priced = used.get("members") or [
        (
            used["prompt"] or 0,
            used["completion"] or 0,
            (Decimal(config.price_prompt_per_1k), Decimal(config.price_completion_per_1k)),
        )
    ]
    cost = summed_cost(
        [
            cost_per_thousand(
                prompt_tokens=prompt,
                completion_tokens=completion,
                tasks=used["tasks"],
                price_prompt_per_1k=price_in,
                price_completion_per_1k=price_out,
            )
            for prompt, completion, (price_in, price_out) in priced
        ]
    )
    latency = median_latency(latencies.get(version.pk, []))
    undefined, gate = report.undefined, report.gate
    return {
        "judge_version": judge_version_header(version),
        "label": version.label,
        "source": version.source,
        "runs": sorted(run.pk for run in runs),
        "units": report.units,
        "agreement": _stat(report.percent_agreement, undefined.get("percent_agreement")),
        "wilson_95": _interval(report.wilson_95, undefined.get("wilson_95")),
        "bootstrap_95": _interval(report.bootstrap_95, undefined.get("bootstrap_95")),
        "cohens_kappa": _stat(report.cohen_kappa, undefined.get("cohen_kappa")),
        "versus_best": None,
        "cost_per_1000": _stat(cost.value, cost.reason),
        "prices": {
            "prompt_per_1k": str(config.price_prompt_per_1k),
            "completion_per_1k": str(config.price_completion_per_1k),
        },
        "usage": {
            "tasks": used["tasks"],
            "calls": used["calls"],
            "prompt_tokens": used["prompt"] or 0,
            "completion_tokens": used["completion"] or 0,
        },
        "median_latency_ms": _stat(latency.value, latency.reason),
        "gate": {
            # As the gate would decide it: the rule met, on the rubric versions the round
            # froze (the gate refuses to record an evaluation otherwise).
            "passed": bool(gate["passed"] and frozen_ok and report.units),
            "rule_passed": bool(gate["passed"]),
            "on_frozen_rubrics": frozen_ok,
        },
    }


def judge_selection(*, round_: ReviewRound, resamples: int = DEFAULT_RESAMPLES) -> dict:
    """The comparison of every judge version whose finished runs cover `round_` (see the
    module), best first, with the cheapest passing version. Thirteen queries however many
    versions, runs and units."""
    benchmark = round_.benchmark
    policy = gate_policy(benchmark=benchmark)
    rule, threshold = GateRule(policy.rule), policy.threshold
    rows = list(
        ReviewItem.objects.filter(round=round_).values_list(
            "response_id", "rubric_version_id", "hand_out_rank"
        )
    )
    frozen = {response: version for response, version, _rank in rows}
    ranks = {response: rank for response, _version, rank in rows}
    runs_of = _covering_runs(round_, len(rows)) if rows else {}
    every_run = [run for runs in runs_of.values() for run in runs]
    judged = agreement_units_by_version(round_=round_, runs=every_run) if every_run else {}
    tokens, latencies = _usage(round_, every_run) if every_run else ({}, {})
    judges, flags, candidates = {}, {}, []
    # The votes are the same in every version's units: the majority is found once.
    gold = majorities(next(iter(judged.values()))[1]) if judged else {}
    # A version derived from this round's calibration part is judged on the rest only.
    derived_here = [
        runs[0].judge_version
        for runs in runs_of.values()
        if derived_on_round(runs[0].judge_version, round_)
    ]
    calibration = calibration_responses(round_=round_) if derived_here else set()
    for version_id, runs in runs_of.items():
        tasks, units = judged[version_id]
        guard = (
            held_out(units, calibration, items=len(rows))
            if derived_on_round(runs[0].judge_version, round_)
            else None
        )
        if guard is not None:
            units = guard.units
        report = agreement_report(
            units,
            threshold=threshold,
            rule=rule,
            resamples=resamples,
            # Only the sequential rule reads the test; the page shows no sequential block.
            sequential=sequential_block(
                units,
                ranks,
                raters_per_item=round_.raters_per_item,
                threshold=threshold,
                weights=sampling_weights(round_=round_, units=units)[1],
            )
            if rule == GateRule.SEQUENTIAL
            else None,
        )
        on_frozen = all(
            tasks.get(response) is not None and tasks[response].rubric_version == version
            for response, version in frozen.items()
        )
        if guard is not None:
            report = with_guard(report, guard, round_name=round_.name)
        row = _judge(runs[0].judge_version, runs, report, on_frozen, tokens, latencies)
        if guard is not None:
            row["calibration"] = report.calibration
            row["excluded"] = {"calibration": guard.excluded_units}
            row["gate"]["refusal"] = report.gate.get("refusal")
        judges[version_id] = row
        flags[version_id] = agreement_flags(units, gold)
        candidates.append(
            Candidate(
                key=version_id,
                label=row["label"],
                agreement=row["agreement"]["value"],
                kappa=row["cohens_kappa"]["value"],
                passed=row["gate"]["passed"],
                cost=row["cost_per_1000"]["value"],
            )
        )
    order = ranked(candidates)
    best = order[0] if order and order[0].agreement is not None else None
    for candidate in order:
        if best is not None and candidate.key != best.key:
            judges[candidate.key]["versus_best"] = versus_best(
                flags[best.key], flags[candidate.key], resamples=resamples
            )
    cheapest, why_none = cheapest_passing(order)
    versions = {version_id: runs[0].judge_version for version_id, runs in runs_of.items()}
    held_out_view = calibration_to_held_out(
        round_=round_,
        versions=versions,
        judges=judges,
        flags=flags,
        calibration=calibration,
        resamples=resamples,
    )
    return {
        "benchmark": benchmark.slug,
        "round": round_.name,
        "round_seed": round_.seed,
        "items": len(rows),
        "gate_policy": {"threshold": threshold, "rule_name": str(rule)},
        "judges": [judges[c.key] for c in order],
        "best": best.label if best else None,
        # The judge to spend on, or why there is none.
        "cheapest_passing": {"label": cheapest.label if cheapest else None, "reason": why_none},
        "passing_without_cost": [c.label for c in order if c.passed and c.cost is None],
        # Each derived version against its parent, on held-out items only.
        "calibration_to_held_out": held_out_view,
        "rubric_versions": rubric_versions_of(
            ReviewItem.objects.filter(round=round_).values_list(
                "response__case__external_id", "rubric_version__number"
            )
        ),
        "bootstrap": {"resamples": resamples, "clusters": "dialogue (case)"},
        "produced_by": f"Concord {CONCORD_VERSION}",
    }
