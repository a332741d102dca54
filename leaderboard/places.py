"""The leaderboard pages that fill places on annotation's and judging's pages."""

from core.places import place_fill

PLACES = {
    "benchmark.leaderboard": "leaderboard",
    "benchmark.agreement": "agreement",
    "benchmark.rubric-health": "rubric-health",
    "benchmark.exports": "exports",
    "benchmark.gate-policy": "gate-policy",
    "case.rubric-health": "rubric-health-versions",
    "round.sequential-card": "round-sequential",
    "round.plan": "round-plan",
    "run.export-download": "export-download",
}


def places_fill() -> None:
    for place, url_name in PLACES.items():
        place_fill(place, url_name)
