"""Rater pseudonyms: one per rater and benchmark, drawn at random once and then kept."""

from collections.abc import Iterable

from annotation.models import RaterPseudonym
from annotation.models.review import new_pseudonym

# Each draw has about a million names to pick from: a second draw is rare, a tenth never.
DRAWS = 10


def rater_pseudonyms_assign(*, benchmark_id: int, user_ids: Iterable[int]) -> None:
    """Give every one of `user_ids` without a pseudonym for the benchmark a new one. Safe
    when two requests draw at once: the database's unique constraints keep the first name
    written, and a name another rater took already is drawn again."""
    wanted = set(user_ids)
    for _ in range(DRAWS):
        known = RaterPseudonym.objects.filter(benchmark_id=benchmark_id)
        missing = wanted - set(known.filter(user_id__in=wanted).values_list("user_id", flat=True))
        if not missing:
            return
        taken = set(known.values_list("name", flat=True))
        rows = []
        for user_id in sorted(missing):
            name = new_pseudonym()
            while name in taken:
                name = new_pseudonym()
            taken.add(name)
            rows.append(RaterPseudonym(benchmark_id=benchmark_id, user_id=user_id, name=name))
        RaterPseudonym.objects.bulk_create(rows, ignore_conflicts=True)
    raise RuntimeError(f"no free pseudonym found for benchmark {benchmark_id}")
