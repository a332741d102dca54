"""Records the bundle carries beside the evidence proper: the board as a table, the response
texts, the runs with the settings they started with and the structured-output probes, and
the gate policy as it stood at publication."""

from django.db.models import Q

from annotation.models import Response
from core.models import AuditEvent
from judging.models import OutputProbe
from judging.selectors.provider import provider_models
from leaderboard import audit_actions
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.calls import abandoned_calls
from leaderboard.models import GateEvaluation, GatePolicy


def response_lines(tasks, items: set[int]) -> list[dict]:
    """The texts of the tasks' responses and of the round's `items` (response ids)."""
    responses = Response.objects.filter(Q(pk__in=tasks.values("response_id")) | Q(pk__in=items))
    return [
        {"question_id": qid, "system": system, "text": text}
        for qid, system, text in responses.order_by("case__position", "system__name").values_list(
            "case__external_id", "system__name", "text"
        )
    ]


def runs_record(runs, evaluation: GateEvaluation, when) -> dict:
    """The runs the board and the evaluation read, each with the settings it started with
    (its structured-output mode and the probe's usage among them) and its abandoned calls,
    and the structured-output probes of their judge versions made by `when` (the
    publication: later runs probe again)."""
    every = {run.pk: run for run in runs} | {run.pk: run for run in evaluation.runs.all()}
    versions = {run.judge_version_id for run in every.values()}
    probes = OutputProbe.objects.filter(judge_version_id__in=versions, probed__lte=when).order_by(
        "probed", "pk"
    )
    abandoned: dict[int, list] = {pk: [] for pk in every}
    for call in abandoned_calls(list(every)):
        abandoned[call["run"]].append(call)
    return {
        "runs": [
            {
                "id": run.pk,
                "status": run.status,
                "source": run.source,
                "created": run.created.isoformat(),
                "finished": run.finished.isoformat() if run.finished else None,
                "settings": run.settings_snapshot,
                "provider_models": provider_models(run.pk),
                # Calls sent but never answered (a stopped lane, a cancel): counted in cost.
                "abandoned_calls": abandoned[run.pk],
            }
            for _pk, run in sorted(every.items())
        ],
        "output_probes": [
            {
                "judge_version": probe.judge_version_id,
                "model": probe.model,
                "finding": probe.finding,
                "mode": probe.mode,
                "http_status": probe.http_status,
                "provider_message": probe.provider_message,
                "probed": probe.probed.isoformat(),
            }
            for probe in probes
        ],
    }


# What a bundle's board shows of a policy that had not changed by its publication: the
# fields the policy's first record held (a later change records every field).
_FIRST_FIELDS = ("threshold", "rule", "allow_rubric_changes")


def policy_state_as_of(benchmark, when) -> tuple[dict, bool]:
    """(The benchmark's gate policy as it stood at `when`, whether a change by then set it),
    from the audit log of its changes: the last change by then, else what the first later
    change replaced, else the policy as it stands (it never changed)."""
    changes = AuditEvent.objects.filter(
        benchmark=benchmark, action=audit_actions.GATE_POLICY_CHANGED
    ).order_by("created", "pk")
    before = changes.filter(created__lte=when).last()
    if before is not None:
        return before.details.get("to", {}), True
    after = changes.filter(created__gt=when).first()
    if after is not None:
        return after.details.get("from", {}), False
    policy = GatePolicy.objects.filter(benchmark=benchmark).first() or GatePolicy()
    return {name: getattr(policy, name) for name in _FIELDS}, False


_FIELDS = (
    *_FIRST_FIELDS,
    "min_raters",
    "max_bias_points",
    "chance_statistic",
    "min_chance",
)


def policy_as_of(benchmark, when) -> dict:
    """The benchmark's gate policy as it stood at `when` (`policy_state_as_of`), as a
    bundle's board shows it."""
    state, changed = policy_state_as_of(benchmark, when)
    if not changed:
        state = {key: state[key] for key in _FIRST_FIELDS if key in state}
    return {**state, "as_of": when.isoformat()}


def board_csv(rows: list[dict]) -> bytes:
    """The published rows as a table, at full precision."""
    abilities = list(dict.fromkeys(label for row in rows for label in row.get("abilities", {})))
    header = [
        "system",
        "kind",
        "overall",
        "overall_95_low",
        "overall_95_high",
        "normal",
        "hard",
        "relative_decline",
        "cases_scored",
        "cases_failed",
        *(f"ability:{label}" for label in abilities),
    ]

    def cell(value):
        return "" if value is None else repr(value) if isinstance(value, float) else value

    lines = [
        [
            row["system"],
            row["kind"],
            *(cell(row.get(name)) for name in ("overall",)),
            *(cell(v) for v in (row.get("overall_95") or [None, None])),
            *(cell(row.get(name)) for name in ("normal", "hard", "relative_decline")),
            row.get("cases_scored"),
            row.get("cases_failed"),
            *(cell(row.get("abilities", {}).get(label)) for label in abilities),
        ]
        for row in rows
    ]
    return layout.csv_bytes(header, lines)
