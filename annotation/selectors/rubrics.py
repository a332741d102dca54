from collections import defaultdict

from django.db.models import OuterRef, QuerySet, Subquery

from annotation.models import Case, Criterion, ReviewItem, ReviewRound, RubricVersion


def latest_version_id_subquery(case_ref: str = "pk") -> Subquery:
    """The id of a case's newest rubric version, for annotating case querysets."""
    return Subquery(
        RubricVersion.objects.filter(case=OuterRef(case_ref)).order_by("-number").values("pk")[:1]
    )


def latest_rubric_versions(*, cases: QuerySet[Case]) -> dict[int, RubricVersion]:
    """Newest rubric version of each case, keyed by case id, in one query."""
    versions = RubricVersion.objects.filter(
        case__in=cases, pk=latest_version_id_subquery("case")
    ).only("pk", "case_id", "number", "content_hash")
    return {version.case_id: version for version in versions}


def current_rubric_version(*, case: Case) -> RubricVersion | None:
    return case.rubric_versions.order_by("-number").first()


def criteria_of_version(*, version: RubricVersion) -> QuerySet[Criterion]:
    return version.criteria.select_related("ability__category").order_by("position")


def open_rounds_freezing(*, case: Case) -> list[tuple[str, int]]:
    """(round name, rubric version number it froze) of the open or paused review rounds
    that rate this case: a new version does not change what their experts rate."""
    return list(
        ReviewItem.objects.filter(
            response__case=case,
            round__status__in=[ReviewRound.Status.OPEN, ReviewRound.Status.PAUSED],
        )
        .values_list("round__name", "rubric_version__number")
        .distinct()
        .order_by("round__name")
    )


def criteria_by_version(version_ids: set[int]) -> dict[int, list[tuple[int, int, str]]]:
    """Per rubric version: (criterion id, position, text) in position order. One query."""
    found: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for version_id, pk, position, text in (
        Criterion.objects.filter(rubric_version_id__in=version_ids)
        .order_by("rubric_version_id", "position")
        .values_list("rubric_version_id", "pk", "position", "text")
    ):
        found[version_id].append((pk, position, text))
    return found
