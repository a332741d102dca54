"""Reading a benchmark's drift anchors: the current set, its responses with their gold in
the set's order, and which of them a run starting now judges. Reads only."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from annotation.models import Benchmark
from annotation.selectors.rubrics import latest_version_id_subquery
from judging.models import AnchorSet, AnchorUnit


@dataclass(frozen=True)
class Anchor:
    """One anchor response: its criteria's gold on the rubric version its round froze."""

    response: int
    case: int
    system: int
    rubric_version: int
    current_version: int | None  # the case's rubric version now
    gold: dict[int, bool] = field(default_factory=dict)

    @property
    def rubric_changed(self) -> bool:
        """The case's rubric has changed since: a verdict now would be on other criteria,
        so the anchor is set aside (never compared across rubric versions)."""
        return self.current_version != self.rubric_version


def anchor_set_current(*, benchmark: Benchmark) -> AnchorSet | None:
    """The benchmark's newest anchor set: the one runs starting now judge."""
    return AnchorSet.objects.filter(benchmark=benchmark).select_related("round").first()


def anchors_of(*, anchor_set: AnchorSet) -> list[Anchor]:
    """The set's anchor responses in its order, each with its gold and its case's current
    rubric version. One query."""
    found: dict[int, Anchor] = {}
    for response, case, system, version, current, criterion, hit in (
        AnchorUnit.objects.filter(anchor_set=anchor_set)
        .annotate(current=latest_version_id_subquery("response__case"))
        .order_by("position", "criterion_id")
        .values_list(
            "response_id",
            "response__case_id",
            "response__system_id",
            "rubric_version_id",
            "current",
            "criterion_id",
            "gold",
        )
    ):
        anchor = found.setdefault(response, Anchor(response, case, system, version, current))
        anchor.gold[criterion] = hit
    return list(found.values())


def anchor_tasks_to_add(
    *, benchmark: Benchmark, planned: Iterable[tuple]
) -> tuple[AnchorSet | None, list[tuple], set[int]]:
    """For a run whose own tasks are `planned` (response, case, system, rubric version):
    the benchmark's current anchor set, the anchors it lacks as tasks of the same form, on
    the rubric version each anchor's round froze, and the responses of every anchor it
    judges (its own or added). An anchor whose case's rubric has changed since is not
    added. Two queries (none of the anchors when the benchmark has none)."""
    anchor_set = anchor_set_current(benchmark=benchmark)
    if anchor_set is None:
        return None, [], set()
    anchors = [a for a in anchors_of(anchor_set=anchor_set) if not a.rubric_changed]
    own = {(case, system): response for response, case, system, _version in planned}
    added = [
        (a.response, a.case, a.system, a.rubric_version)
        for a in anchors
        if (a.case, a.system) not in own
    ]
    judged = {a.response for a in anchors if own.get((a.case, a.system), a.response) == a.response}
    return anchor_set, added, judged
