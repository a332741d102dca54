from dataclasses import dataclass, field
from itertools import groupby

from django.http import Http404

from annotation.models import Case, Criterion, Response, RubricVersion
from annotation.selectors.rubrics import criteria_of_version


@dataclass
class AbilityGroup:
    ability_name: str
    category_name: str
    criteria: list[Criterion]


@dataclass
class CaseView:
    case: Case
    versions: list[RubricVersion]
    version: RubricVersion | None
    criteria: list[Criterion]
    groups: list[AbilityGroup] = field(default_factory=list)
    responses: list[Response] = field(default_factory=list)


def case_view(*, case: Case, version_number: int | None = None) -> CaseView:
    """Everything the case page shows, in four queries whatever the rubric size."""
    versions = list(case.rubric_versions.select_related("author").order_by("number"))
    if version_number is None:
        version = versions[-1] if versions else None
    else:
        version = next((v for v in versions if v.number == version_number), None)
        if version is None:
            raise Http404("No such rubric version")
    criteria = list(criteria_of_version(version=version)) if version else []
    ordered = sorted(
        criteria,
        key=lambda c: (
            c.ability.category.position,
            c.ability.position,
            c.ability.label,
            c.position,
        ),
    )
    groups = [
        AbilityGroup(
            ability_name=ability.name, category_name=ability.category.name, criteria=list(items)
        )
        for ability, items in groupby(ordered, key=lambda c: c.ability)
    ]
    responses = list(case.responses.select_related("system").order_by("system__name"))
    return CaseView(
        case=case,
        versions=versions,
        version=version,
        criteria=criteria,
        groups=groups,
        responses=responses,
    )
