"""Reads for the FAQ and the worked examples, and who may read them."""

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q
from django.shortcuts import get_object_or_404

from annotation.models import (
    Ability,
    Assignment,
    Benchmark,
    FaqEntry,
    Guideline,
    ReviewRound,
    WorkedExample,
)

MANAGE = "annotation.manage_review"
SEARCH_MAX_LENGTH = 200


def guidance_round_get(user, round_id: int) -> ReviewRound:
    """A round whose benchmark's guidance `user` may read, or 404: coordinators every
    round's; an expert those of the rounds they rate in (the pool, or work of their own)."""
    rounds = ReviewRound.objects.select_related("benchmark")
    if not user.has_perm(MANAGE):
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


def faq_links_by_ability(*, benchmark_id: int, ability_ids: set[int]) -> dict[int, list[FaqLink]]:
    """Ability id -> the FAQ entries linked to it, for the criteria of the annotation page.
    One query, whatever the number of criteria."""
    links: dict[int, list[FaqLink]] = defaultdict(list)
    rows = (
        FaqEntry.abilities.through.objects.filter(
            faqentry__benchmark_id=benchmark_id, ability_id__in=ability_ids
        )
        .values_list("ability_id", "faqentry_id", "faqentry__question")
        .order_by("faqentry_id")
    )
    for ability_id, pk, question in rows:
        links[ability_id].append(FaqLink(pk, question))
    return links


def guideline_of(benchmark: Benchmark) -> Guideline | None:
    return Guideline.objects.filter(benchmark=benchmark).first()
