"""A benchmark's case labels (difficulty, scene) as they stood at a moment. A re-import
that changes them records each change, with the label it replaced, in the audit log: the
labels at a moment are those the first later change replaced, else the current ones."""

from dataclasses import dataclass, field
from datetime import datetime

from annotation import audit_actions
from core.models import AuditEvent


@dataclass(frozen=True)
class CaseLabelsThen:
    # Per question id relabelled since: the difficulty, [primary, secondary] scene then.
    difficulty: dict[str, str] = field(default_factory=dict)
    scene: dict[str, list[str]] = field(default_factory=dict)

    def difficulty_of(self, question_id: str, now: str) -> str:
        return self.difficulty.get(question_id, now)

    def primary_of(self, question_id: str, now: str | None) -> str | None:
        return self.scene[question_id][0] if question_id in self.scene else now

    def secondary_of(self, question_id: str, now: str | None) -> str | None:
        return self.scene[question_id][1] if question_id in self.scene else now


def case_labels_as_of(*, benchmark, when: datetime) -> CaseLabelsThen:
    """The labels of the benchmark's cases relabelled after `when`, as they were at `when`.
    One query."""
    then = CaseLabelsThen()
    for details in (
        AuditEvent.objects.filter(
            benchmark=benchmark, action=audit_actions.RUBRIC_IMPORTED, created__gt=when
        )
        .order_by("created", "pk")
        .values_list("details", flat=True)
    ):
        for change in details.get("difficulty_changed", []):
            then.difficulty.setdefault(change["case"], change["from"])
        for change in details.get("scene_changed", []):
            then.scene.setdefault(change["case"], list(change["from"]))
    return then
