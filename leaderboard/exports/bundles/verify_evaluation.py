"""One gate evaluation re-derived from the bundle alone (no Django): its units rebuilt from
the round's items, the votes as they stood and the verdicts read; then the agreement, every
breakdown, the sequential block in hand-out order, the raters per item and the gate's
decision under the recorded rule, each compared with what the report claims."""

import json
from collections import defaultdict

from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.checks import (
    AGREEMENT,
    BREAKDOWNS,
    GATE_DECISION,
    GATE_HISTORY,
    RATERS_COMPLETE,
    SEQUENTIAL,
    Verification,
    same,
    same_tree,
)
from leaderboard.exports.bundles.verify_board import category
from leaderboard.exports.bundles.verify_weighted import check_weighted, plain_share, unit_weights
from leaderboard.gate.history import RoundTallies, round_tallies
from leaderboard.report.agreement import (
    FAILED,
    NOT_JUDGED,
    OTHER_VERSION,
    GateRule,
    Unit,
    agreement_report,
)
from leaderboard.sequential.evidence import sequential_block
from leaderboard.stats.sequential import DEFAULT_ALPHA

# The report's numbers that must be recomputed exactly (within TOLERANCE).
REPORT_NUMBERS = (
    "percent_agreement",
    "cohen_kappa",
    "gwet_ac1",
    "pabak",
    "binomial_p",
    "binomial_log10_p",
)
REPORT_INTERVALS = ("wilson_95", "bootstrap_95")
HUMAN_NUMBERS = ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "pairwise_agreement")
BREAKDOWN_NAMES = (
    "by_ability",
    "by_category",
    "by_difficulty",
    "by_scenario",
    "by_system",
    "by_rater",
)
# The sequential block's entries that follow from the items, their votes and verdicts, the
# hand-out order and the threshold (its "savings" also need the experts' pace: not checked).
SEQUENTIAL_NUMBERS = (
    "decision",
    "reason",  # why it decides nothing (unequal chances, a threshold of 0 or 1)
    "threshold",
    "items_used",
    "decided_at",
    "e_pass",
    "e_fail",
    "cs",
    "items_total",
    "ratings_used",
    "ratings_needed",
    "ratings_planned",
    "ratings_total",
)
# Rules that need a complete, pre-planned sample (every item rated by the round's raters).
FIXED_SAMPLE_RULES = {GateRule.POINT, GateRule.LOWER_BOUND}


def _votes(files, prefix) -> dict[tuple[str, str, int], list[tuple[str, bool]]]:
    votes: dict[tuple[str, str, int], list[tuple[str, bool]]] = defaultdict(list)
    for row in layout.read_csv(files[prefix + layout.VOTES]):
        key = (row["question_id"], row["system"], int(row["criterion"]))
        votes[key].append((row["rater"], row["hit"] == "1"))
    return votes


def _missing(task: dict | None, version: int) -> str:
    if task is None or task["status"] not in ("done", "failed"):
        return NOT_JUDGED
    if task["status"] == "done" and int(task["rubric_version"]) != version:
        return OTHER_VERSION
    return FAILED


def evaluation_items(files: dict[str, bytes], prefix: str) -> list[dict]:
    """The round's items in hand-out order, each with its number (`item`)."""
    rows = layout.read_csv(files[prefix + layout.ITEMS])
    for index, row in enumerate(rows, start=1):
        row.setdefault("item", str(index))
    return rows


def evaluation_units(files: dict[str, bytes], prefix: str, rubrics, taxonomy) -> list[Unit]:
    """The units of an evaluation, in the order the report read them; each unit's response
    is its item's number."""
    votes = _votes(files, prefix)
    tasks = {
        (row["question_id"], row["system"]): row
        for row in layout.read_jsonl(files[prefix + layout.EVALUATION_VERDICTS])
    }
    units = []
    for item in evaluation_items(files, prefix):
        qid, system, version = item["question_id"], item["system"], int(item["rubric_version"])
        rubric = rubrics[layout.rubric_key(qid, version)]
        scenario = " / ".join(
            part for part in (rubric.get("primary_scene"), rubric.get("secondary_scene")) if part
        )
        task = tasks.get((qid, system))
        missing = _missing(task, version)
        same_version = task is not None and task["status"] == "done" and missing != OTHER_VERSION
        for position, criterion in enumerate(rubric["rubric"], start=1):
            ability = criterion["dimension"]
            units.append(
                Unit(
                    response=int(item["item"]),
                    case=qid,
                    criterion=position,
                    ability=ability,
                    category=category(taxonomy, ability),
                    difficulty=rubric["difficulty"],
                    scenario=scenario,
                    system=system,
                    judge=bool(task["hits"][position - 1]) if same_version else None,
                    votes=tuple(sorted(votes.get((qid, system, position), ()))),
                    no_verdict=missing,
                )
            )
    return units


class _Context:
    """What the checks of one evaluation share."""

    def __init__(self, files, prefix, rubrics, taxonomy):
        self.prefix = prefix
        self.where = prefix + layout.REPORT_JSON
        self.source = f"{prefix}{layout.VOTES} and {prefix}{layout.EVALUATION_VERDICTS}"
        self.claimed = json.loads(files[self.where])
        self.evaluation = json.loads(files[prefix + layout.EVALUATION])
        self.items = evaluation_items(files, prefix)
        self.units = evaluation_units(files, prefix, rubrics, taxonomy)
        self.gate = self.claimed["gate"]
        self.rule = GateRule(self.gate["rule_name"])
        self.raters = self.evaluation.get("raters_per_item")
        self.ranks = (
            {int(item["item"]): int(item["hand_out_rank"]) for item in self.items}
            if all(item.get("hand_out_rank") not in (None, "") for item in self.items)
            else None
        )
        # A bundle written before items carried their probabilities (or of a round that
        # recorded none) cannot weight.
        self.carries_chances = bool(self.items) and all(
            item.get("inclusion_probability") not in (None, "") for item in self.items
        )
        # Weighted as the report was: the items' probabilities are the ones recorded now,
        # which an evaluation recorded before they were (an imported round) did not read.
        applied = (self.claimed.get("sampling") or {}).get("weights_applied")
        self.weights = unit_weights(self.items, self.units) if applied else None


def _sequential(context: _Context) -> dict | None:
    if context.ranks is None or not isinstance(context.raters, int):
        return None
    claimed = context.claimed.get("sequential") or {}
    return sequential_block(
        context.units,
        context.ranks,
        raters_per_item=context.raters,
        threshold=context.gate["threshold"],
        alpha=claimed.get("alpha", DEFAULT_ALPHA),
        weights=context.weights,
    )


def _history(context: _Context, result: Verification) -> list[RoundTallies] | None:
    """The judge version's rounds as the gate recorded them, oldest first, with the
    evaluated round's tallies (the last) recomputed from the bundle and compared."""
    rounds = context.gate.get("rounds")
    if not rounds:
        return None
    recorded = rounds[-1]
    current = round_tallies(
        context.units,
        context.ranks or {},
        round_id=int(recorded["round_id"]),
        name=str(recorded["round"]),
        raters_per_item=int(context.raters or recorded["raters_per_item"]),
        raters_read_verdicts=bool(recorded.get("raters_read_verdicts", False)),
        unequal_chances=context.weights is not None and len(set(context.weights)) > 1,
        weights=context.weights,
    )
    if not same_tree(current.as_dict(), recorded):
        result.fail(
            GATE_HISTORY,
            context.where,
            f"the gate's history holds tallies for round {recorded['round']!r} that differ "
            f"from those recomputed in hand-out order from {context.source} (items "
            f"{recorded.get('items')} recorded, {len(current.per_item)} in the bundle)",
        )
    result.ran_check(GATE_HISTORY, f"the gate's history of {len(rounds)} rounds")
    return [RoundTallies.from_dict(each) for each in rounds[:-1]] + [current]


def check_evaluation(files, prefix, rubrics, taxonomy, result: Verification) -> None:
    context = _Context(files, prefix, rubrics, taxonomy)
    sequential = _sequential(context)
    bootstrap = context.claimed["bootstrap"]
    claimed_sampling = context.claimed.get("sampling") or {}
    # Compared as the bundle keeps a report: as JSON.
    report = agreement_report(
        context.units,
        weights=context.weights,
        sampling=(
            {key: claimed_sampling.get(key) for key in ("design", "probabilities_recorded")}
            if context.weights is not None
            else None
        ),
        threshold=context.gate["threshold"],
        rule=context.rule,
        resamples=bootstrap["resamples"],
        seed=bootstrap["seed"],
        sequential=sequential,
        history=_history(context, result),
        min_raters=int(context.gate.get("min_raters", 1)),
        short_of=int(context.claimed.get("min_raters", 0)),
    ).as_json()
    _check_agreement(context, report, result)
    _check_breakdowns(context, report, result)
    _check_sequential(context, sequential, result)
    _check_raters(context, result)
    _check_decision(context, report, result)


def _check_agreement(context: _Context, report: dict, result: Verification) -> None:
    claimed, where, source = (
        plain_share(context.claimed, context.carries_chances),
        context.where,
        context.source,
    )
    if report["units"] != claimed.get("units") or report["excluded"] != claimed.get("excluded"):
        result.fail(
            AGREEMENT,
            where,
            f"{claimed.get('units')} units (excluded {claimed.get('excluded')}) are claimed, "
            f"{report['units']} (excluded {report['excluded']}) are recomputed from {source}",
        )
    for name in REPORT_NUMBERS:
        if name in claimed and not same(claimed[name], report[name]):
            result.fail(
                AGREEMENT,
                where,
                f"{name} {claimed[name]!r} is claimed, {report[name]!r} is recomputed from "
                f"{source}",
            )
    for name in REPORT_INTERVALS:
        if not same_tree(report.get(name), claimed.get(name)):
            result.fail(
                AGREEMENT,
                where,
                f"{name} {claimed.get(name)!r} is claimed, {report.get(name)!r} is recomputed "
                f"from {source}",
            )
    humans = claimed.get("humans", {})
    for name in HUMAN_NUMBERS:
        if name in humans and not same(humans[name], report["humans"][name]):
            result.fail(
                AGREEMENT,
                where,
                f"the experts' {name} differs from the one recomputed from {source}",
            )
    confusion = claimed.get("confusion", {})
    if any(
        confusion.get(k) != report["confusion"][k]
        for k in ("both_hit", "judge_only", "human_only", "both_miss")
    ):
        result.fail(AGREEMENT, where, "the confusion matrix differs from " + source)
    if context.weights is not None:
        check_weighted(context, report, result)
    evaluation = context.evaluation
    # Checked on its plain share, the evaluation still keeps the weighted one it claims.
    weighted = claimed is not context.claimed
    expected = context.claimed["percent_agreement"] if weighted else report["percent_agreement"]
    if (
        not same(evaluation.get("agreement"), expected)
        or evaluation.get("units") != report["units"]
    ):
        result.fail(
            AGREEMENT,
            context.prefix + layout.EVALUATION,
            "the agreement or its units differ from the recomputed ones",
        )
    result.ran_check(
        AGREEMENT,
        f"evaluation {evaluation.get('id')}: agreement recomputed from {len(context.units)} "
        f"units ({report['units']} with a majority and a verdict)",
    )


def _check_breakdowns(context: _Context, report: dict, result: Verification) -> None:
    for name in BREAKDOWN_NAMES:
        claimed = context.claimed.get(name)
        if same_tree(claimed, report[name]):
            continue
        claimed = claimed if isinstance(claimed, dict) else {}
        groups = sorted(
            group
            for group in set(claimed) | set(report[name])
            if not same_tree(claimed.get(group), report[name].get(group))
        )
        result.fail(
            BREAKDOWNS,
            context.where,
            f"{name} differs from the one recomputed from {context.source}: "
            f"{', '.join(map(str, groups[:5])) or '?'}"
            + (f" and {len(groups) - 5} more" if len(groups) > 5 else ""),
        )
    result.ran_check(BREAKDOWNS, f"{len(BREAKDOWN_NAMES)} breakdowns of {context.where}")


def _check_sequential(context: _Context, sequential: dict | None, result: Verification) -> None:
    claimed = context.claimed.get("sequential")
    if claimed is None:
        if context.rule == GateRule.SEQUENTIAL:
            result.fail(
                SEQUENTIAL,
                context.where,
                "the rule is sequential, and there is no sequential block",
            )
        return
    if sequential is None:
        result.fail(
            SEQUENTIAL,
            context.prefix + layout.ITEMS,
            "the hand-out order or the round's raters per item is missing: the sequential "
            "block cannot be recomputed",
        )
        return
    differ = [
        name
        for name in SEQUENTIAL_NUMBERS
        if not same_tree(claimed.get(name), sequential.get(name))
    ]
    if differ:
        result.fail(
            SEQUENTIAL,
            context.where,
            "the sequential block differs from the one recomputed in hand-out order from "
            f"{context.source}: "
            + ", ".join(f"{n} {claimed.get(n)!r} claimed, {sequential.get(n)!r}" for n in differ),
        )
    result.ran_check(
        SEQUENTIAL,
        f"sequential block recomputed from {len(context.items)} items in hand-out order "
        f"(decision {sequential.get('decision')!r})",
    )


def _check_raters(context: _Context, result: Verification) -> None:
    where = context.prefix + layout.VOTES
    if not isinstance(context.raters, int) or context.raters < 1:
        result.fail(
            RATERS_COMPLETE,
            context.prefix + layout.EVALUATION,
            "the round's raters per item is not recorded",
        )
        return
    short: dict[tuple[str, str], int] = {}
    for unit in context.units:
        raters = len({rater for rater, _hit in unit.votes})
        if raters < context.raters:
            key = (unit.case, unit.system)
            short[key] = min(short.get(key, raters), raters)
    if short and context.rule in FIXED_SAMPLE_RULES:
        listed = ", ".join(f"{q} ({s}): {n}" for (q, s), n in sorted(short.items())[:5])
        result.fail(
            RATERS_COMPLETE,
            where,
            f"{len(short)} of {len(context.items)} items have fewer than the round's "
            f"{context.raters} raters on some criterion ({listed}); the {context.rule} rule "
            "needs a complete sample",
        )
    result.ran_check(
        RATERS_COMPLETE,
        f"raters per item: {len(context.items) - len(short)} of {len(context.items)} items "
        f"rated by {context.raters} raters on every criterion",
    )


def _check_decision(context: _Context, report: dict, result: Verification) -> None:
    passed = report["gate"]["passed"]
    if passed != context.gate.get("passed") or context.evaluation.get("passed") != passed:
        result.fail(
            GATE_DECISION,
            context.prefix + layout.EVALUATION,
            f"the gate is recorded as {'passed' if context.evaluation.get('passed') else 'failed'}"
            f"; under its rule ({context.rule}, threshold {context.gate['threshold']}) the "
            f"recomputed evidence {'passes' if passed else 'fails'}",
        )
    result.ran_check(
        GATE_DECISION,
        f"gate decision recomputed: {'pass' if passed else 'fail'} under {context.rule}",
    )
