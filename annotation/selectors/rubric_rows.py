from annotation.models import Ability, Criterion, RubricVersion
from annotation.rubric_edit.rows import RubricRow


def row_of(criterion: Criterion) -> RubricRow:
    return RubricRow(
        key=str(criterion.key),
        ability=criterion.ability.label,
        weight=criterion.weight,
        text=criterion.text,
    )


def rows_of_version(version: RubricVersion | None) -> list[RubricRow]:
    if version is None:
        return []
    return [row_of(c) for c in version.criteria.select_related("ability").order_by("position")]


def taxonomy_labels() -> tuple[set[str], set[str]]:
    """All ability labels, and those of the catastrophic class."""
    pairs = list(Ability.objects.values_list("label", "is_catastrophic"))
    return {label for label, _ in pairs}, {label for label, flag in pairs if flag}
