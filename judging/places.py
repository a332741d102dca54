"""The judging pages that fill places on annotation's pages."""

from core.places import place_fill


def places_fill() -> None:
    place_fill("benchmark.saturated-criteria", "rubric-saturated")
    place_fill("round.new-uncertain", "review-round-new-uncertain")
