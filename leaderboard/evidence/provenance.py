"""Naming what produced an output (no Django): the rubric version of every case."""

from collections import defaultdict
from collections.abc import Iterable


def rubric_versions_of(pairs: Iterable[tuple[str, int | None]]) -> dict[str, int | list[int]]:
    """{question_id: rubric version number} from (question_id, number) pairs, in question_id
    order; a case judged on several versions (runs of different times) lists them all."""
    numbers: dict[str, set[int]] = defaultdict(set)
    for question_id, number in pairs:
        if number is not None:
            numbers[question_id].add(number)
    return {
        question_id: next(iter(found)) if len(found) == 1 else sorted(found)
        for question_id, found in sorted(numbers.items())
    }
