"""Reads for the FAQ and the worked examples, and who may read them."""

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q
from django.shortcuts import get_object_or_404

from annotation.models import (
    Ability,
    Assignment,
    Benchmark,
    Criterion,
    FaqEntry,
    Guideline,
    ReviewRound,
    WorkedExample,
)
from annotation.selectors.rubrics import latest_version_id_subquery
from core.permissions import Perm

SEARCH_MAX_LENGTH = 200


def guidance_round_get(user, round_id: int) -> ReviewRound:
    """A round whose benchmark's guidance `user` may read, or 404: coordinators every
    round's; an expert those of the rounds they rate in (the pool, or work of their own)."""
    rounds = ReviewRound.objects.select_related("benchmark")
    if not user.has_perm(Perm.MANAGE_REVIEW):
        work = Assignment.objects.filter(item__round_id=OuterRef("pk"), expert_id=user.pk)
        pool = ReviewRound.experts.through.objects.filter(
            reviewround_id=OuterRef("pk"), user_id=user.pk
        )
        rounds = rounds.filter(Q(Exists(pool)) | Q(Exists(work)))
    return get_object_or_404(rounds, pk=round_id)


def faq_entries(*, benchmark: Benchmark, search: str = "") -> list[FaqEntry]:
    """The benchmark's FAQ, or the entries whose question or answer contains `search`
    (case-insensitive where letters have case; Chinese text matches as written)."""
    entries = FaqEntry.objects.filter(benchmark=benchmark).prefetch_related("abilities")
    search = search.strip()[:SEARCH_MAX_LENGTH]
    if search:
        entries = entries.filter(Q(question__icontains=search) | Q(answer__icontains=search))
    return list(entries)


@dataclass(frozen=True)
class AbilityExamples:
    ability: Ability
    examples: list[WorkedExample]


def worked_examples_by_ability(*, benchmark: Benchmark) -> list[AbilityExamples]:
    """The benchmark's worked examples grouped by ability, in the taxonomy's order."""
    groups: dict[int, list[WorkedExample]] = defaultdict(list)
    abilities: dict[int, Ability] = {}
    examples = (
        WorkedExample.objects.filter(benchmark=benchmark)
        .select_related("ability__category")
        .order_by("ability__category__position", "ability__position", "ability__label", "pk")
    )
    for example in examples:
        abilities[example.ability_id] = example.ability
        groups[example.ability_id].append(example)
    return [AbilityExamples(abilities[pk], groups[pk]) for pk in groups]


@dataclass(frozen=True)
class FaqLink:
    pk: int
    question: str

    @property
    def anchor(self) -> str:
        return f"faq-{self.pk}"


def faq_links_for_criteria(*, benchmark_id: int, criteria) -> dict[int, list[FaqLink]]:
    """Criterion id -> the FAQ entries shown beside it on the annotation page: the entries
    that name its key, and the entries that name no criterion but its ability. Two queries,
    whatever the number of criteria."""
    entries = list(
        FaqEntry.objects.filter(benchmark_id=benchmark_id)
        .order_by("pk")
        .values_list("pk", "question", "criterion_keys")
    )
    by_ability: dict[int, set[int]] = defaultdict(set)
    for ability_id, pk in FaqEntry.abilities.through.objects.filter(
        faqentry__benchmark_id=benchmark_id
    ).values_list("ability_id", "faqentry_id"):
        by_ability[ability_id].add(pk)
    links: dict[int, list[FaqLink]] = {}
    for criterion in criteria:
        key = str(criterion.key)
        links[criterion.pk] = [
            FaqLink(pk, question)
            for pk, question, keys in entries
            if ((key in keys) if keys else (pk in by_ability.get(criterion.ability_id, ())))
        ]
    return links


def criterion_keys_named(*, benchmark: Benchmark, refs: list[str]) -> tuple[list[str], list[str]]:
    """The keys of the criteria named as "case#number" in each case's current rubric
    version, and the references that name none."""
    wanted: dict[str, list[tuple[str, int]]] = defaultdict(list)
    wrong = []
    for ref in refs:
        case, _, number = ref.rpartition("#")
        if not case or not number.strip().isdigit():
            wrong.append(ref)
            continue
        wanted[case.strip()].append((ref, int(number)))
    rows = Criterion.objects.filter(
        rubric_version__case__benchmark=benchmark,
        rubric_version__case__external_id__in=list(wanted),
        rubric_version_id=latest_version_id_subquery("rubric_version__case"),
    ).values_list("rubric_version__case__external_id", "position", "key")
    keys = {(case, position): str(key) for case, position, key in rows}
    found = []
    for case, named in wanted.items():
        for ref, number in named:
            key = keys.get((case, number))
            if key is None:
                wrong.append(ref)
            elif key not in found:
                found.append(key)
    return found, wrong


def criterion_refs_of(*, benchmark: Benchmark, keys: list[str]) -> list[str]:
    """ "case#number" of each key in its case's current rubric version (a key that no
    current version has any more is given as it is). One query."""
    if not keys:
        return []
    current = {
        str(key): f"{case}#{position}"
        for key, case, position in Criterion.objects.filter(
            rubric_version__case__benchmark=benchmark,
            key__in=keys,
            rubric_version_id=latest_version_id_subquery("rubric_version__case"),
        ).values_list("key", "rubric_version__case__external_id", "position")
    }
    return [current.get(str(key), str(key)) for key in keys]


def guideline_of(benchmark: Benchmark) -> Guideline | None:
    return Guideline.objects.filter(benchmark=benchmark).first()
